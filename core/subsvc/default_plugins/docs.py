"""Internal plugin: ``/openapi.json``, ``/docs`` (Swagger UI) and ``/redoc``, served only when
``IS_DOCS_ENABLED`` is true. The pages' assets come from an installed package (no CDN)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import drf_spectacular_sidecar
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from subsvc.api import Endpoint, HTTPError, Router
from subsvc.api.openapi import build_document
from subsvc.hookspecs import hookimpl

STATIC = Path(drf_spectacular_sidecar.__file__).parent / "static" / "drf_spectacular_sidecar"
ASSETS = {
    "swagger-ui.css": STATIC / "swagger-ui-dist" / "swagger-ui.css",
    "swagger-ui-bundle.js": STATIC / "swagger-ui-dist" / "swagger-ui-bundle.js",
    "favicon-32x32.png": STATIC / "swagger-ui-dist" / "favicon-32x32.png",
    "redoc.standalone.js": STATIC / "redoc" / "bundles" / "redoc.standalone.js",
}
SWAGGER_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - Swagger UI</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({{url: "/openapi.json", dom_id: "#swagger-ui", persistAuthorization: true,
  deepLinking: true, presets: [SwaggerUIBundle.presets.apis]}});
</script></body></html>
"""
REDOC_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/openapi.json"></redoc>
<script src="/docs/assets/redoc.standalone.js"></script></body></html>
"""

router = Router(area="web", tag="docs")


def _require_enabled(request: Request) -> None:
    """With docs off, these paths answer like any unknown path."""
    if not request.app.state.settings.IS_DOCS_ENABLED:
        raise HTTPError(404, "Not Found")


def openapi_document(request: Request) -> bytes:
    """The OpenAPI document of this app, built on first use and kept."""
    state: Any = request.app.state
    cached: bytes | None = getattr(state, "openapi_bytes", None)
    if cached is None:
        document = build_document(
            state.endpoints,
            title=state.settings.API_TITLE,
            version=state.settings.API_VERSION,
            tags=state.openapi_tags,
        )
        cached = state.openapi_bytes = json.dumps(document, ensure_ascii=False).encode()
    return cached


@router.get("/openapi.json", public=True, include_in_schema=False)
async def openapi_json(request: Request) -> Response:
    _require_enabled(request)
    return Response(openapi_document(request), media_type="application/json")


@router.get("/docs", public=True, include_in_schema=False)
async def swagger_ui(request: Request) -> Response:
    _require_enabled(request)
    return HTMLResponse(SWAGGER_PAGE.format(title=request.app.state.settings.API_TITLE))


@router.get("/doc", public=True, include_in_schema=False)
async def doc_alias(request: Request) -> Response:
    _require_enabled(request)
    return RedirectResponse("/docs", status_code=307)


@router.get("/redoc", public=True, include_in_schema=False)
async def redoc(request: Request) -> Response:
    _require_enabled(request)
    return HTMLResponse(REDOC_PAGE.format(title=request.app.state.settings.API_TITLE))


@router.get("/docs/assets/{name}", public=True, include_in_schema=False)
async def docs_asset(request: Request, name: str) -> Response:
    _require_enabled(request)
    path = ASSETS.get(name)
    if path is None:
        raise HTTPError(404, "Not Found")
    return FileResponse(path, headers={"Cache-Control": "public, max-age=86400"})


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return router.endpoints
