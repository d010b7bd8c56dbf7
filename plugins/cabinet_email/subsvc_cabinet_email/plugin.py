"""Plugin `cabinet_email`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_cabinet_email import __version__, delivery
from subsvc_cabinet_email.mailer import Mailer
from subsvc_cabinet_email.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_cabinet_email.models import EmailToken
from subsvc_cabinet_email.passwords import Passwords
from subsvc_cabinet_email.routes import endpoints
from subsvc_cabinet_email.settings import CabinetEmailSettings

PLUGIN_NAME = "cabinet_email"
REQUIRES = ("users", "cabinet_auth")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return CabinetEmailSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [EmailToken]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return endpoints


@hookimpl
def startup(app: Starlette) -> None:
    settings: CabinetEmailSettings = app.state.settings_of[PLUGIN_NAME]
    app.state.cabinet_email_mailer = Mailer(settings)
    app.state.cabinet_email_passwords = Passwords(settings)
    app.state.cabinet_email_sending = set()


@hookimpl
async def shutdown(app: Starlette) -> None:
    await delivery.drain(app)
