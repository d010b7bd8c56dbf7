"""The cabinet_email plugin's runtime hooks: its mailer and password hasher start with the
app; mails still being sent are waited for at shutdown."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_cabinet_email import delivery
from subsvc_cabinet_email.mailer import Mailer
from subsvc_cabinet_email.passwords import Passwords
from subsvc_cabinet_email.settings import CabinetEmailSettings


@hookimpl
def startup(app: Starlette) -> None:
    settings = CabinetEmailSettings.of(app)
    app.state.cabinet_email_mailer = Mailer(settings)
    app.state.cabinet_email_passwords = Passwords(settings)
    app.state.cabinet_email_sending = set()


@hookimpl
async def shutdown(app: Starlette) -> None:
    await delivery.drain(app)


@hookimpl
def register_commands(cli: Any) -> None:
    """``subsvc admin create --email E``: the first administrator's e-mail login."""
    from subsvc_cabinet_email.cli import register

    register(cli)
