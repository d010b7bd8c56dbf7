"""Hook implementations of the users plugin."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from subsvc.hookspecs import hookimpl
from subsvc_users import hookspecs
from subsvc_users.models import User

REQUIRES = ("promo_groups",)


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [User]


@hookimpl
def register_migrations() -> Path:
    return Path(__file__).parent / "migrations" / "versions"
