"""Settings of the cabinet_admin_users plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class CabinetAdminUsersSettings(PluginSettings):
    ADMIN_USER_RECENT_TRANSACTIONS: int = Field(
        20,
        ge=0,
        le=200,
        description="How many of the newest transactions `GET /cabinet/admin/users/{id}` shows "
        "in `recent_transactions`.",
    )
    ADMIN_USER_NODE_USAGE_DAYS: int = Field(
        30,
        ge=1,
        le=365,
        description="Days of per-node traffic `GET /cabinet/admin/users/{id}/node-usage` asks "
        "the VPN panel for (one figure per day).",
    )
