"""Plugin `menus`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job
from subsvc_menus import __version__
from subsvc_menus.jobs import JOBS
from subsvc_menus.models import MODELS
from subsvc_menus.routes import admin, layout, layout_buttons, main_menu, stats
from subsvc_menus.routes.common import UPDATED, MenuUpdated
from subsvc_menus.settings import MenusSettings

PLUGIN_NAME = "menus"
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return MenusSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return MODELS


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    routers = (
        main_menu.router,
        layout.router,
        layout_buttons.router,
        stats.router,
        admin.styles_router,
        admin.layout_router,
    )
    return [endpoint for router in routers for endpoint in router.endpoints]


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"settings": ["read", "edit"]}


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {UPDATED: MenuUpdated}


@hookimpl
def register_jobs() -> Sequence[Job]:
    return JOBS


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [
        {
            "name": "main-menu",
            "description": "The main menu's extra buttons (links, Mini Apps) and messages.",
        },
        {
            "name": "menu-layout",
            "description": "The bot's menu layout constructor: rows, buttons, "
            "visibility rules, history, click statistics.",
        },
        {
            "name": "Admin Menu Layout",
            "description": "The cabinet's menu rows (builtin sections, custom links).",
        },
        {
            "name": "Admin Button Styles",
            "description": "The style, emoji and labels of each cabinet section's button.",
        },
    ]
