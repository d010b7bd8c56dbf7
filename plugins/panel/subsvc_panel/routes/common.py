"""What the areas share: permissions, the client of the request's app, errors as answers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc.panel import NOT_CONFIGURED
from subsvc_panel import local, service
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
    return cast(PanelClient, request.app.state.panel)


@contextmanager
def answers() -> Iterator[None]:
    """The rules' refusals as answers: unknown things 404, incomplete requests 400."""
    try:
        yield
    except (service.NotFound, local.NotFound) as exc:
        raise HTTPError(404, str(exc)) from None
    except (service.ActionRefused, local.Refused) as exc:
        raise HTTPError(400, str(exc)) from None
