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
    ADMIN_USER_MESSAGE_ATTEMPTS: int = Field(
        5,
        ge=1,
        le=50,
        description="Attempts at sending an administrator's message to a user while the messenger "
        "is rate-limiting or unreachable (a user who blocked the bot is not retried).",
    )
    ADMIN_USER_MESSAGE_POLL_SECONDS: float = Field(
        60,
        ge=0,
        description="How often the worker looks for administrators' messages still to send "
        "(retries, and what a restart left); 0 = only when one is queued.",
    )
