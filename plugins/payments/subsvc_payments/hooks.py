"""The payments plugin's runtime hooks."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_payments.http import close_clients


@hookimpl
async def shutdown(app: Starlette) -> None:
    """Close the provider plugins' HTTP clients of this app."""
    await close_clients(app)
