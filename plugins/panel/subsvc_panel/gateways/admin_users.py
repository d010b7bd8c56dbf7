"""``cabinet_admin_panel``: the administrators' panel operations on one user."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.panel import (
    NodeUsage,
    PanelDevice,
    PanelError,
    PanelUser,
    PushOptions,
    PushResult,
    SubscriptionRequest,
)
from subsvc_panel import accounts
from subsvc_panel.client import PanelClient, PanelNotFound
from subsvc_panel.service import as_int

PUSHED_BY = {"status": "status", "traffic_limit": "trafficLimitBytes", "expire_date": "expireAt"}


class AdminUsersGateway:
    """:class:`subsvc.panel.AccountsPanel` over the client (its errors are port errors)."""

    def __init__(self, panel: PanelClient) -> None:
        self.panel = panel

    async def find_user(self, user: User, panel_uuid: str | None) -> PanelUser | None:
        account = await accounts.find_account(self.panel, user, panel_uuid)
        return accounts.panel_user(account) if account is not None else None

    async def devices(self, panel_uuid: str) -> Sequence[PanelDevice]:
        return await accounts.devices_of(self.panel, panel_uuid)

    async def delete_device(self, panel_uuid: str, hwid: str) -> bool:
        return await self.panel.delete_user_device(panel_uuid, hwid)

    async def node_usage(self, panel_uuid: str, start: date, end: date) -> tuple[list[str], list[NodeUsage]]:
        """One label per day from ``start`` to ``end``; each node's bytes per label."""
        labels = [(start + timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]
        index = {label: n for n, label in enumerate(labels)}
        first = datetime.combine(start, time.min, UTC)
        last = datetime.combine(end, time.max, UTC)
        try:
            rows = await self.panel.user_usage(panel_uuid, first, last)
        except PanelNotFound:
            rows = []
        nodes: dict[str, dict[str, Any]] = {}
        for row in rows:
            node_uuid = str(row.get("nodeUuid") or "")
            node = nodes.setdefault(
                node_uuid,
                {
                    "name": str(row.get("nodeName") or ""),
                    "country": str(row.get("countryCode") or ""),
                    "daily": [0] * len(labels),
                },
            )
            position = index.get(str(row.get("date") or "")[:10])
            if position is not None:
                node["daily"][position] += as_int(row.get("total"))
        usage = [
            NodeUsage(
                node_uuid=node_uuid,
                node_name=node["name"],
                country_code=node["country"],
                total_bytes=sum(node["daily"]),
                daily_bytes=node["daily"],
            )
            for node_uuid, node in nodes.items()
        ]
        return labels, sorted(usage, key=lambda n: n.total_bytes, reverse=True)

    async def push(
        self, user: User, subscription: Subscription, panel_uuid: str | None, options: PushOptions
    ) -> PushResult:
        """Write the subscription to the account (creating it when missing and allowed)."""
        account = await accounts.find_account(self.panel, user, panel_uuid)
        if account is None:
            if not options.create_if_missing:
                raise PanelError("User not found in the VPN panel")
            created = await self.panel.create_user(accounts.new_account_fields(user, subscription))
            return PushResult("created", created.get("uuid"), {"panel_uuid": created.get("uuid")})
        wanted = accounts.subscription_fields(subscription)
        chosen = {key for flag, key in PUSHED_BY.items() if getattr(options, flag)}
        chosen |= {"hwidDeviceLimit"} if options.traffic_limit else set()
        if options.squads:
            chosen.add("activeInternalSquads")
        changes = accounts.differences(account, {k: v for k, v in wanted.items() if k in chosen})
        if not changes:
            return PushResult("no_changes", account.get("uuid"))
        await self.panel.update_user(account["uuid"], {k: v["new"] for k, v in changes.items()})
        return PushResult("updated", account.get("uuid"), dict(changes))

    async def request_history(self, panel_uuid: str) -> Sequence[SubscriptionRequest]:
        return await accounts.request_history_of(self.panel, panel_uuid)

    async def disable_user(self, panel_uuid: str) -> bool:
        try:
            await self.panel.disable_user(panel_uuid)
        except PanelNotFound:
            return False
        return True

    async def delete_user(self, panel_uuid: str) -> bool:
        return await self.panel.delete_user(panel_uuid)
