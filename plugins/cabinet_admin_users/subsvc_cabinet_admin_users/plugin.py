"""Plugin `cabinet_admin_users`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_cabinet_admin_users import __version__, hookspecs
from subsvc_cabinet_admin_users.changes import STATUS_CHANGED, USER_DELETED
from subsvc_cabinet_admin_users.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_cabinet_admin_users.routes import endpoints
from subsvc_cabinet_admin_users.routes.common import TAG
from subsvc_cabinet_admin_users.schemas import UserDeleted, UserStatusChanged
from subsvc_cabinet_admin_users.settings import CabinetAdminUsersSettings

PLUGIN_NAME = "cabinet_admin_users"
REQUIRES = ("users", "promo_groups", "billing", "subscriptions")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    return CabinetAdminUsersSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [UserAdminSettings]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    actions = [
        "read",
        "edit",
        "block",
        "delete",
        "balance",
        "subscription",
        "promo_group",
        "referral",
        "sync",
    ]
    return {"users": actions}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {STATUS_CHANGED: UserStatusChanged, USER_DELETED: UserDeleted}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = (
        "Cabinet administrators' user management: the list, statistics, detail, balance, "
        "subscription, status, restrictions, promo group, referrals, deletion and the VPN panel account."
    )
    return [{"name": TAG, "description": description}]
