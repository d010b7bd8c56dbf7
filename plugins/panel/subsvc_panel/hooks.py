"""The panel plugin's runtime hooks (its client, its errors' answers) and its implementations
of the servers, tariffs and cabinet_admin_users ports."""

from __future__ import annotations

import logging
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api.errors import error_response
from subsvc.health import WebhookStatus
from subsvc.hookspecs import hookimpl
from subsvc.panel import NOT_CONFIGURED
from subsvc_panel.client import PanelClient, PanelError, PanelNotConfigured, PanelNotFound, PanelUnavailable
from subsvc_panel.settings import PanelSettings

log = logging.getLogger("subsvc.panel")


@hookimpl
def startup(app: Starlette) -> None:
    app.state.panel = PanelClient.from_settings(PanelSettings.of(app))


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


@hookimpl
def health_webhooks(app: Starlette) -> list[WebhookStatus]:
    """The VPN panel is configured or not; its events are not received here (the sync polls)."""
    return [WebhookStatus("panel", "panel", _configured(app) is not None, None)]
