"""Internal plugin: ``GET /plugins`` lists every plugin, enabled or not."""

from __future__ import annotations

from pydantic import BaseModel, TypeAdapter
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import Router
from subsvc.default_plugins import serving

router = Router(area="web", tag="plugins")


class PluginResponse(BaseModel):
    name: str
    version: str
    enabled: bool
    internal: bool
    requires: list[str]


_LIST = TypeAdapter(list[PluginResponse])


@router.get("/plugins", response_model=list[PluginResponse])
async def list_plugins(request: Request) -> Response:
    """Every plugin: name, version, whether it runs, and the plugins it requires."""
    body: bytes | None = getattr(request.app.state, "plugin_list", None)
    if body is None:  # the set of plugins is fixed while the app runs: render it once
        infos = _LIST.validate_python(request.app.state.plugins.infos, from_attributes=True)
        body = request.app.state.plugin_list = _LIST.dump_json(infos)
    return Response(body, media_type="application/json")


register_routes, register_openapi_tags = serving(router, "The plugins this server runs.")
