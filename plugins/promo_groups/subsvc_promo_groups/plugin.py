"""Hook implementations of the promo_groups plugin."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from subsvc.hookspecs import hookimpl
from subsvc_promo_groups.models import PromoGroup


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [PromoGroup]


@hookimpl
def register_migrations() -> Path:
    return Path(__file__).parent / "migrations" / "versions"
