"""The pay_overpay plugin's runtime hooks."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_pay_overpay import store
from subsvc_pay_overpay.settings import OverpaySettings


@hookimpl
async def startup(app: Starlette) -> None:
    """Write this instance's certificate file from the database (when Overpay is configured)."""
    settings = OverpaySettings.of(app)
    if not settings.configured:
        return
    async with services(app).db.session(read_only=True) as session:
        store.sync_file(await store.current(session), settings.certificate_path)
