"""Plugin `cabinet_oauth`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import Endpoint
from subsvc.api.errors import error_response
from subsvc.hookspecs import hookimpl
from subsvc_cabinet_oauth import __version__, hookspecs
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.flows import close_http_client
from subsvc_cabinet_oauth.merge import ACCOUNT_MERGED
from subsvc_cabinet_oauth.models import MergeToken, OAuthIdentity, OAuthState
from subsvc_cabinet_oauth.routes import linking, merge, oauth
from subsvc_cabinet_oauth.schemas import AccountMergedPayload
from subsvc_cabinet_oauth.settings import CabinetOAuthSettings

PLUGIN_NAME = "cabinet_oauth"
REQUIRES = ("users", "cabinet_auth")
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_hookspecs() -> ModuleType:
    return hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    return CabinetOAuthSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [OAuthIdentity, OAuthState, MergeToken]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*oauth.router.endpoints, *linking.router.endpoints, *merge.router.endpoints]


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {ACCOUNT_MERGED: AccountMergedPayload}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {"name": "Cabinet OAuth", "description": "Log in with Google, Yandex, Discord or VK ID (OAuth 2.0)."},
        {
            "name": "Cabinet Account Linking",
            "description": "Link and unlink providers and the messenger; complete a link without a JWT.",
        },
        {
            "name": "Cabinet Account Merge",
            "description": "Preview and execute a merge offered by a linking conflict.",
        },
    ]


@hookimpl
async def shutdown(app: Starlette) -> None:
    await close_http_client(app)


@hookimpl
def handle_exception(request: Request, exc: Exception) -> Response | None:
    """A refused step of a flow answers its status and detail."""
    if isinstance(exc, FlowError):
        return error_response(exc.status, exc.detail)
    return None
