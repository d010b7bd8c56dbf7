"""What the areas share: permissions, the client of the request's app, the documented answers.
The rules' refusals are answered as ``plugin.py`` declares them."""

from __future__ import annotations

from starlette.requests import Request

from subsvc.panel import NOT_CONFIGURED
from subsvc_panel import service
from subsvc_panel.api import client_of
from subsvc_panel.client import PanelClient

READ = "panel:read"
MANAGE = "panel:manage"
TRAFFIC_READ = "traffic:read"
TRAFFIC_EXPORT = "traffic:export"
PANEL_FAILURES = {502: "The VPN panel failed or did not answer", 503: NOT_CONFIGURED}
NODE_RESPONSES = {404: service.NODE_NOT_FOUND, **PANEL_FAILURES}
SQUAD_RESPONSES = {404: service.SQUAD_NOT_FOUND, **PANEL_FAILURES}
SQUAD_ACTION_RESPONSES = {400: "Name is required for rename", **SQUAD_RESPONSES}


def panel(request: Request) -> PanelClient:
    """The app's panel client."""
    return client_of(request.app)
