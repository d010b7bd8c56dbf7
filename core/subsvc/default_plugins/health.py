"""Internal plugin: ``GET /health`` and ``/health/unified`` (no credentials),
``/health/database``, ``/metrics/pool``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc.db import is_database_unavailable
from subsvc.default_plugins import serving
from subsvc.events import failure_counts
from subsvc.health import WebhookStatus
from subsvc.services import services

router = Router(area="web", tag="health")


class HealthFeatureFlags(BaseModel):
    model_config = ConfigDict(extra="forbid")

    monitoring: bool
    maintenance: bool
    reporting: bool
    webhooks: bool


class HealthCheckResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: str
    api_version: str
    bot_version: str | None
    features: HealthFeatureFlags


@router.get("/health", public=True)
async def health_check(request: Request) -> HealthCheckResponse:
    """Liveness: the process answers. Needs no credentials and does not touch the database."""
    cached: HealthCheckResponse | None = getattr(request.app.state, "health", None)
    if cached is None:
        settings = request.app.state.settings
        names = {info.name for info in request.app.state.plugins.enabled}
        cached = HealthCheckResponse(
            status="ok",
            api_version=settings.API_VERSION,
            bot_version=settings.BOT_VERSION,
            features=HealthFeatureFlags(
                monitoring="monitoring" in names,
                maintenance=True,
                reporting=True,
                webhooks="webhooks" in names,
            ),
        )
        request.app.state.health = cached
    return cached


class WebhookState(BaseModel):
    """An incoming webhook: ``configured`` (its credentials set), ``path`` where this service
    receives it (``null``: not received here)."""

    model_config = ConfigDict(extra="forbid")

    configured: bool
    path: str | None


class UnifiedHealthResponse(BaseModel):
    """The service's components at a glance (no secrets, no network call)."""

    model_config = ConfigDict(extra="forbid")

    status: str
    api_version: str
    bot_version: str | None
    web_api_enabled: bool
    payment_webhooks: dict[str, WebhookState]
    messenger_webhook: WebhookState
    panel_webhook: WebhookState


@router.get("/health/unified", public=True, summary="Unified Health Check")
async def unified_health(request: Request) -> UnifiedHealthResponse:
    """The service's components at a glance, without credentials: the payment providers (each
    configured or not, the path its notifications are received at), the messenger's and the
    VPN panel's webhooks. Reads settings only (the plugins' `health_webhooks` hook)."""
    app = request.app
    settings = services(app).settings
    reported: list[WebhookStatus] = [
        status
        for answer in await services(app).plugins.call_all("health_webhooks", app=app)
        for status in answer
    ]
    groups: dict[str, dict[str, WebhookState]] = {"payment": {}, "messenger": {}, "panel": {}}
    for status in reported:
        groups[status.group][status.name] = WebhookState(configured=status.configured, path=status.path)
    not_received = WebhookState(configured=False, path=None)
    return UnifiedHealthResponse(
        status="ok",
        api_version=settings.API_VERSION,
        bot_version=settings.BOT_VERSION,
        web_api_enabled=True,
        payment_webhooks=dict(sorted(groups["payment"].items())),
        messenger_webhook=next(
            iter(groups["messenger"].values()), WebhookState(configured=bool(settings.BOT_TOKEN), path=None)
        ),
        panel_webhook=next(iter(groups["panel"].values()), not_received),
    )


@router.get("/health/database", responses={503: "The database is unreachable"})
async def database_health(request: Request) -> dict[str, Any]:
    """Reachability, round-trip time and pool figures of the database, and the event
    subscribers' recorded failures (`event_failures`: `retrying`, `given_up`); 503 when
    unreachable."""
    db = request.app.state.db
    try:
        latency_ms = await db.ping()
    except Exception as exc:
        if not is_database_unavailable(exc):
            raise
        raise HTTPError(
            503, {"status": "unavailable", "dialect": db.dialect, "error": type(exc).__name__}
        ) from None
    return {
        "status": "ok",
        "dialect": db.dialect,
        "latency_ms": round(latency_ms, 2),
        "pool": db.pool_status(),
        "event_failures": await failure_counts(db),
    }


@router.get("/metrics/pool")
async def pool_metrics(request: Request) -> dict[str, Any]:
    """Connection-pool figures (no database round trip)."""
    db = request.app.state.db
    return {"dialect": db.dialect, **db.pool_status()}


register_routes, register_openapi_tags = serving(router, "Liveness and database health.")
