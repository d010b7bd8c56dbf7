"""The payments plugin's runtime hooks."""

from __future__ import annotations

from starlette.applications import Starlette

from subsvc.health import WebhookStatus
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_payments.http import close_clients
from subsvc_payments.notifications import NOTIFIED_BY
from subsvc_payments.providers import provider_for


@hookimpl
async def shutdown(app: Starlette) -> None:
    """Close the provider plugins' HTTP clients of this app."""
    await close_clients(app)


@hookimpl
async def health_webhooks(app: Starlette) -> list[WebhookStatus]:
    """Every provider plugin's notification endpoint: configured or not, and its path."""
    found = []
    for endpoint in services(app).endpoints:
        provider = NOTIFIED_BY.get(endpoint.name or "")
        if provider is not None:
            configured = await provider_for(app, provider) is not None
            found.append(WebhookStatus("payment", provider, configured, endpoint.path))
    return found
