"""Plugin `panel`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, cast

from pydantic_settings import BaseSettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import Endpoint
from subsvc.api.errors import error_response
from subsvc.hookspecs import hookimpl
from subsvc.panel import NOT_CONFIGURED
from subsvc_panel import __version__
from subsvc_panel.client import PanelClient, PanelError, PanelNotConfigured, PanelNotFound, PanelUnavailable
from subsvc_panel.settings import PanelSettings

PLUGIN_NAME = "panel"
REQUIRES = ("users", "subscriptions", "servers")

log = logging.getLogger("subsvc.panel")

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return PanelSettings


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    from subsvc_panel.routes import endpoints

    return endpoints


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"panel": ["read", "sync", "manage"], "traffic": ["read", "export"]}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "panel",
            "description": "The VPN panel: status, statistics, nodes, squads, inbounds, users' traffic.",
        },
        {"name": "Cabinet Admin Panel", "description": "Cabinet administrators' view of the VPN panel."},
        {
            "name": "Admin Traffic",
            "description": "Cabinet administrators' traffic monitoring per user and node.",
        },
    ]


@hookimpl
def startup(app: Starlette) -> None:
    settings = cast(PanelSettings, app.state.settings_of[PLUGIN_NAME])
    app.state.panel = PanelClient.from_settings(settings)


@hookimpl
async def shutdown(app: Starlette) -> None:
    panel: PanelClient | None = getattr(app.state, "panel", None)
    if panel is not None:
        await panel.aclose()


@hookimpl
def handle_exception(request: Request, exc: Exception) -> Response | None:
    """A panel failure escaping an endpoint: 503 unconfigured, 404 unknown, else 502."""
    if not isinstance(exc, PanelError):
        return None
    log.warning("%s %s: panel %s %s failed: %s", request.method, request.url.path, exc.method, exc.path, exc)
    if isinstance(exc, PanelNotConfigured):
        return error_response(503, NOT_CONFIGURED)
    if isinstance(exc, PanelNotFound):
        return error_response(404, "Not found in the VPN panel")
    if isinstance(exc, PanelUnavailable):
        return error_response(502, f"VPN panel unavailable: {exc.message}")
    return error_response(502, f"VPN panel refused the request: {exc.message}")


def panel_of(app: Any) -> PanelClient:
    """The app's panel client."""
    return cast(PanelClient, app.state.panel)


def _configured(app: Starlette) -> PanelClient | None:
    panel: PanelClient | None = getattr(app.state, "panel", None)
    return panel if panel is not None and panel.configured else None


@hookimpl
def servers_panel(app: Starlette) -> Any:
    """The servers plugin's port (``None`` without a configured panel: it answers 503)."""
    panel = _configured(app)
    if panel is None:
        return None
    from subsvc_panel.gateways.servers import ServersGateway

    return ServersGateway(panel)


@hookimpl(optionalhook=True)
def tariffs_panel(app: Starlette) -> Any:
    """The tariffs plugin's port (``None`` without a configured panel)."""
    panel = _configured(app)
    if panel is None:
        return None
    from subsvc_panel.gateways.tariffs import TariffsGateway

    return TariffsGateway(app, panel)


@hookimpl(optionalhook=True)
def cabinet_admin_panel(app: Starlette) -> Any:
    """The cabinet_admin_users plugin's port (``None`` without a configured panel)."""
    panel = _configured(app)
    if panel is None:
        return None
    from subsvc_panel.gateways.admin_users import AdminUsersGateway

    return AdminUsersGateway(panel)
