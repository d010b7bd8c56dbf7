"""Plugin `webhooks`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings
from sqlalchemy.orm import Session
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.events import EventWrite
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job
from subsvc_webhooks import __version__, service
from subsvc_webhooks.delivery import Deliverer
from subsvc_webhooks.models import Webhook, WebhookDelivery
from subsvc_webhooks.routes import router
from subsvc_webhooks.settings import WebhookSettings

PLUGIN_NAME = "webhooks"
REQUIRES = ()
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


def _deliverer(app: Starlette) -> Deliverer:
    deliverer: Deliverer = app.state.webhook_deliverer
    return deliverer


async def deliver(app: Starlette) -> None:
    """The job: send every delivery that is due."""
    await _deliverer(app).drain()


def _poll_seconds(app: Starlette) -> float:
    settings: WebhookSettings = app.state.settings_of[PLUGIN_NAME]
    return settings.WEBHOOK_POLL_SECONDS


@hookimpl
def register_settings() -> type[BaseSettings]:
    return WebhookSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [Webhook, WebhookDelivery]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"webhooks": ["read", "manage"]}


@hookimpl
def register_jobs() -> Sequence[Job]:
    return [Job(service.DELIVER_JOB, deliver, every=_poll_seconds)]


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    description = (
        "Outgoing webhooks: endpoints that receive events (one type or `*`), signed, retried "
        "with backoff, their delivery attempts and totals."
    )
    return [{"name": "webhooks", "description": description}]


@hookimpl
def startup(app: Starlette) -> None:
    """Write pending deliveries with every event, and be ready to send them."""
    app.state.webhook_deliverer = Deliverer(app)
    jobs = app.state.jobs

    def written(session: Session, count: int) -> None:
        if count:
            jobs.enqueue_after_commit(session, service.DELIVER_JOB)

    deliveries = EventWrite(
        "webhook_deliveries", service.deliveries_from, service.delivery_parameters, written
    )
    app.state.events.write_with_events(deliveries)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await _deliverer(app).stop()
