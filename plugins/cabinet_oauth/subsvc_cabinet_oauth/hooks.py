"""The cabinet_oauth plugin's runtime hooks: the provider client is closed at shutdown, and a
refused step of a flow answers its own status."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api.errors import error_response
from subsvc.hookspecs import hookimpl
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.flows import close_http_client


@hookimpl
async def shutdown(app: Starlette) -> None:
    await close_http_client(app)


@hookimpl
def handle_exception(request: Request, exc: Exception) -> Response | None:
    """A refused step of a flow answers its status and detail."""
    if isinstance(exc, FlowError):
        return error_response(exc.status, exc.detail)
    return None
