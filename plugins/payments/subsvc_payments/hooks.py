"""The payments plugin's runtime hooks, and its part when a promo group is deleted."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.health import WebhookStatus
from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc.services import services
from subsvc_payments.http import close_clients
from subsvc_payments.models import PaymentMethodPromoGroup
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


@hookimpl
async def promo_group_deleting(
    app: Starlette, session: AsyncSession, group_id: int, fallback_group_id: int
) -> None:
    """The methods a deleted group's members could see stay visible to them in the default
    group, where they are moved (a method limited to groups does not open to everyone)."""
    links = PaymentMethodPromoGroup.__table__.c  # type: ignore[attr-defined]
    await reassign(session, links.promo_group_id, fallback_group_id, group_id, unique=(links.method_id,))
