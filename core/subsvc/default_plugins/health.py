"""Internal plugin: ``GET /health`` (no credentials), ``/health/database``, ``/metrics/pool``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from starlette.requests import Request

from subsvc.api import HTTPError, Router
from subsvc.db import is_database_unavailable
from subsvc.default_plugins import serving

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


@router.get("/health", response_model=HealthCheckResponse, public=True, summary="Health Check")
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


@router.get(
    "/health/database",
    response_model=dict[str, Any],
    summary="Database Health",
    responses={503: "The database is unreachable"},
)
async def database_health(request: Request) -> dict[str, Any]:
    """Reachability, round-trip time and pool figures of the database; 503 when unreachable."""
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
    }


@router.get("/metrics/pool", response_model=dict[str, Any], summary="Pool Metrics")
async def pool_metrics(request: Request) -> dict[str, Any]:
    """Connection-pool figures (no database round trip)."""
    db = request.app.state.db
    return {"dialect": db.dialect, **db.pool_status()}


register_routes, register_openapi_tags = serving(router, "Liveness and database health.")
