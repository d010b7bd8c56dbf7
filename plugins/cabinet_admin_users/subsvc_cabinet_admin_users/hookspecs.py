"""Extension points of the cabinet_admin_users plugin.

The panel plugin implements the panel's, the tariffs plugin the tariffs' and their names;
gifts and the campaign / partner attribution have no implementation yet. Without one the
hooks answer ``None`` and the endpoints say what is true (the panel is not configured; there
are no tariffs, no gifts; no user was brought by a campaign or partner).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from subsvc.hookspecs import hookspec

if TYPE_CHECKING:
    from sqlalchemy import Select
    from sqlmodel.ext.asyncio.session import AsyncSession
    from starlette.applications import Starlette

    from subsvc_cabinet_admin_users.panel import PanelGateway


@hookspec(firstresult=True)
def cabinet_admin_panel(app: Starlette) -> Awaitable[PanelGateway | None] | PanelGateway | None:
    """Return the VPN panel gateway (a :class:`subsvc.panel.AccountsPanel`,
    see :data:`subsvc_cabinet_admin_users.panel.PanelGateway`)
    the administrators' device, traffic, panel-info and sync operations use, or ``None`` when
    this plugin has no panel. Called per request; without one those operations answer 503."""


@hookspec(firstresult=True)
def cabinet_admin_user_tariffs(
    session: AsyncSession, user_id: int, promo_group_id: int | None, include_inactive: bool
) -> Awaitable[Sequence[dict[str, Any]] | None] | Sequence[dict[str, Any]] | None:
    """Return (an awaitable of) the tariffs for ``GET /cabinet/admin/users/{id}/available-tariffs``:
    dicts with the fields of an available-tariff item (``id``, ``name``, ``is_available``...).
    ``None`` when the plugin keeps no tariffs."""


@hookspec(firstresult=True)
def cabinet_admin_user_gifts(
    session: AsyncSession, user_id: int
) -> Awaitable[dict[str, Any] | None] | dict[str, Any] | None:
    """Return (an awaitable of) ``{"sent": [...], "received": [...], "sent_total": n,
    "received_total": n}`` for the user's gift subscriptions, or ``None`` when the plugin keeps
    no gifts."""


@hookspec(firstresult=True)
def cabinet_admin_tariff_names(
    session: AsyncSession, tariff_ids: Sequence[int]
) -> Awaitable[Mapping[int, str] | None] | Mapping[int, str] | None:
    """Return (an awaitable of) ``{tariff_id: name}`` for the tariffs named on a page (one
    query), or ``None`` when the plugin keeps no tariffs (the names are then null)."""


@hookspec
def cabinet_admin_user_attribution(
    session: AsyncSession, campaign_id: int | None, partner_id: int | None
) -> Awaitable[Select[tuple[int]] | None] | Select[tuple[int]] | None:
    """Return (an awaitable of) a statement selecting the ids of the users a campaign
    (``campaign_id``) or partner (``partner_id``) brought, or ``None`` when your plugin does
    not know that one. Filters of the users list; without an answer such a filter matches
    nobody (no installed plugin records who brought a user yet)."""
