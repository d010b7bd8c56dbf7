"""Rows to response bodies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from subsvc_promo_groups.api import PromoGroup
from subsvc_subscriptions.api import actual_status
from subsvc_users.api import PromoGroupSummary

from subsvc.db import utcnow
from subsvc_servers.models import Server
from subsvc_servers.schemas import (
    PromoGroupInfo,
    ServerConnectedUser,
    ServerDetailResponse,
    ServerListItem,
    ServerResponse,
)
from subsvc_servers.service import availability_status, is_full


def web_server(server: Server, groups: Sequence[PromoGroup]) -> ServerResponse:
    """The Web API's record: the server and the promo groups that may buy it."""
    return ServerResponse.model_validate(
        {
            **server.model_dump(),
            "promo_groups": [PromoGroupSummary.model_validate(group) for group in groups],
        }
    )


def _list_fields(server: Server) -> dict[str, Any]:
    return {
        **server.model_dump(),
        "is_full": is_full(server),
        "availability_status": availability_status(server),
    }


def list_item(server: Server) -> ServerListItem:
    return ServerListItem.model_validate(_list_fields(server))


def detail(
    server: Server,
    every_group: Sequence[PromoGroup],
    selected: Sequence[PromoGroup],
    active_subscriptions: int,
    tariffs_using: Sequence[str],
) -> ServerDetailResponse:
    """The cabinet's detail: every promo group, those that may buy the server selected."""
    chosen = {group.id for group in selected}
    groups = [
        PromoGroupInfo(id=group.id, name=group.name, is_selected=group.id in chosen) for group in every_group
    ]
    return ServerDetailResponse.model_validate(
        {
            **_list_fields(server),
            "promo_groups": groups,
            "active_subscriptions": active_subscriptions,
            "tariffs_using": list(tariffs_using),
        }
    )


def connected_user(row: Mapping[str, Any]) -> ServerConnectedUser:
    values = dict(row)
    values["subscription_status"] = actual_status(
        values["subscription_status"], values["subscription_end_date"], utcnow()
    )
    return ServerConnectedUser.model_validate(values)
