"""Hook implementations of the stats plugin."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from starlette.applications import Starlette

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_stats.routes import router
from subsvc_stats.service import StatsService

REQUIRES = ("users", "billing", "subscriptions")


class StatsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    STATS_CACHE_SECONDS: float = Field(
        5.0,
        ge=0,
        description=(
            "How long computed statistics are served before they are computed again (in the "
            "background: the last figures are served meanwhile); 0 computes on every request."
        ),
    )


@hookimpl
def register_settings() -> type[StatsSettings]:
    return StatsSettings


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints


@hookimpl
def register_openapi_tags() -> list[dict[str, str]]:
    return [{"name": "stats", "description": "Overview and detailed statistics."}]


@hookimpl
def register_permissions() -> dict[str, list[str]]:
    return {"stats": ["read", "export"]}


@hookimpl
def startup(app: Starlette) -> None:
    settings: StatsSettings = app.state.settings_of["stats"]
    app.state.stats = StatsService(app.state.db, app.state.bus, settings.STATS_CACHE_SECONDS)


@hookimpl
async def shutdown(app: Starlette) -> None:
    stats: StatsService | None = getattr(app.state, "stats", None)
    if stats is not None:
        await stats.stop()
