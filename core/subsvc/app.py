"""``create_app``: settings + plugins -> one Starlette application."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute

from subsvc import plugins as plugin_loader
from subsvc.api.endpoint import Endpoint
from subsvc.api.errors import (
    DomainErrors,
    RequestValidationError,
    http_error_handler,
    validation_error_handler,
)
from subsvc.api.routing import IndexedRouter
from subsvc.auth.jwt import JWTCodec
from subsvc.auth.permissions import build_registry
from subsvc.bus import create_bus
from subsvc.db import Database
from subsvc.db import migrate as migrations
from subsvc.events import EventBus, RetryPolicy
from subsvc.jobs import Jobs
from subsvc.messenger import Messenger
from subsvc.middleware import CoreMiddleware
from subsvc.realtime import Hub, websocket_routes
from subsvc.settings import Settings, load_settings

log = logging.getLogger("subsvc")


def create_app(
    settings: Settings | None = None,
    plugins: list[ModuleType | str] | None = None,
    *,
    migrate: bool = False,
) -> Starlette:
    """Build the app.

    ``plugins``: modules (or dotted names) to run instead of the installed entry points —
    for tests and embedding; ``SUBSVC_PLUGINS``/``SUBSVC_PLUGINS_DISABLED`` apply either way.
    ``migrate``: upgrade the database when the app starts (``subsvc serve`` does).
    """
    settings = settings or load_settings(Settings)  # type: ignore[assignment]
    assert settings is not None
    manager = plugin_loader.load(settings.SUBSVC_PLUGINS, settings.SUBSVC_PLUGINS_DISABLED, plugins)

    settings_of: dict[str, BaseSettings] = {}
    for info, cls in manager.each("register_settings"):
        settings_of[info.name] = load_settings(cls)
    manager.each("register_models")
    endpoints: list[Endpoint] = [
        _at_configured_path(endpoint, settings_of.get(info.name))
        for info, routes in manager.each("register_routes")
        for endpoint in routes
    ]
    _check_unique(endpoints)
    auth_responses: dict[str, dict[int, str]] = {}
    for _, declared in manager.each("register_auth_responses"):
        for area, answers in declared.items():
            auth_responses.setdefault(area, {}).update(answers)
    for endpoint in endpoints:
        endpoint.document(auth_responses.get(endpoint.area))
    tags = [tag for _, declared in manager.each("register_openapi_tags") for tag in declared]
    permissions = build_registry(sections for _, sections in manager.each("register_permissions"))
    _check_permissions(endpoints, permissions)
    migration_dirs = manager.migration_dirs()
    catalogue = _event_catalogue(manager)
    jobs = [job for _, declared in manager.each("register_jobs") for job in declared]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if migrate:
            await asyncio.to_thread(migrations.upgrade, settings.DATABASE_URL, migration_dirs)
        await app.state.bus.start()
        await manager.each_async("startup", app=app)
        await app.state.events.start()
        await app.state.jobs.start(worker=settings.JOBS_WORKER)
        # Everything built so far lives as long as the app: keep it out of the garbage
        # collector's scans, which otherwise grow with the size of the app. (No collection
        # first: it costs a full scan of the process at every start, tests included.)
        gc.freeze()
        try:
            yield
        finally:
            gc.unfreeze()
            await app.state.jobs.stop()
            await app.state.events.stop()
            await manager.each_async("shutdown", reverse=True, app=app)
            await app.state.realtime.close()
            await app.state.messenger.aclose()
            await app.state.bus.stop()
            await app.state.db.dispose()

    errors = DomainErrors((info.name, declared) for info, declared in manager.each("register_errors"))
    larger_bodies = [
        (endpoint.route(), endpoint.max_body_bytes)
        for endpoint in endpoints
        if endpoint.max_body_bytes is not None and endpoint.max_body_bytes > settings.MAX_BODY_BYTES
    ]
    middleware = [
        Middleware(
            CoreMiddleware,
            max_body_bytes=settings.MAX_BODY_BYTES,
            plugins=manager,
            errors=errors,
            larger_bodies=larger_bodies,
        )
    ]
    if settings.CORS_ORIGINS:
        middleware.insert(0, _cors(settings.CORS_ORIGINS))
    routes: list[BaseRoute] = [endpoint.route() for endpoint in sorted(endpoints, key=_specific_first)]
    routes += websocket_routes()
    app = Starlette(
        middleware=middleware,
        exception_handlers={
            HTTPException: http_error_handler,
            RequestValidationError: validation_error_handler,
        },
    )
    app.router = IndexedRouter(routes, lifespan=lifespan)
    state: Any = app.state
    state.settings = settings
    state.settings_of = settings_of
    state.settings_names = {type(value): name for name, value in settings_of.items()}
    state.plugins = manager
    state.endpoints = endpoints
    state.openapi_tags = tags
    state.permissions = permissions
    state.migration_dirs = migration_dirs
    state.db = Database(settings)
    state.bus = create_bus(settings.REDIS_URL)
    retry = RetryPolicy(
        base_seconds=settings.OUTBOX_RETRY_BASE_SECONDS,
        factor=settings.OUTBOX_RETRY_FACTOR,
        max_seconds=settings.OUTBOX_RETRY_MAX_SECONDS,
        max_attempts=settings.OUTBOX_RETRY_MAX_ATTEMPTS,
    )
    state.events = EventBus(state.db, state.bus, catalogue, retry)
    state.realtime = Hub(state.bus, manager)
    state.jobs = Jobs(app, jobs, settings)
    state.jwt = JWTCodec.from_settings(settings)
    state.messenger = Messenger.from_settings(settings)
    return app


def _event_catalogue(manager: plugin_loader.PluginManager) -> dict[str, type[BaseModel]]:
    catalogue: dict[str, type[BaseModel]] = {}
    for info, declared in manager.each("register_events"):
        for event_type, model in declared.items():
            if event_type in catalogue:
                raise plugin_loader.PluginError(
                    f"event type {event_type!r} is declared twice (again by {info.name!r})"
                )
            catalogue[event_type] = model
    return catalogue


def _at_configured_path(endpoint: Endpoint, settings: BaseSettings | None) -> Endpoint:
    """The endpoint, or a copy of it at the path its plugin's ``path_setting`` names (when set)."""
    path = getattr(settings, endpoint.path_setting, None) if endpoint.path_setting else None
    if not path or path == endpoint.path:
        return endpoint
    return dataclasses.replace(endpoint, path=path)


def _specific_first(endpoint: Endpoint) -> list[int]:
    """Sort key: at each path segment a fixed name comes before a ``{parameter}``, so
    ``/pages/faq/status`` is matched before ``/pages/faq/{page_id}``."""
    return [1 if segment.startswith("{") else 0 for segment in endpoint.path.split("/")]


def _check_permissions(endpoints: list[Endpoint], registry: dict[str, list[str]]) -> None:
    """Stop the start on an endpoint whose permission no enabled plugin registers (a typo
    would otherwise leave it to administrators only, silently)."""
    for endpoint in endpoints:
        if endpoint.permission is None:
            continue
        section, _, action = endpoint.permission.partition(":")
        if action not in registry.get(section, ()):
            raise plugin_loader.PluginError(
                f"{endpoint.method} {endpoint.path} needs permission {endpoint.permission!r}, "
                "which no enabled plugin registers (register_permissions / Plugin(permissions=...))"
            )


def _check_unique(endpoints: list[Endpoint]) -> None:
    seen: dict[tuple[str, str], Endpoint] = {}
    for endpoint in endpoints:
        key = (endpoint.method, endpoint.path)
        if key in seen:
            raise plugin_loader.PluginError(f"{endpoint.method} {endpoint.path} is declared twice")
        seen[key] = endpoint


def _cors(origins: list[str]) -> Middleware:
    """`*` allows any origin without credentials; a list allows those origins with them."""
    any_origin = "*" in origins
    return Middleware(
        CORSMiddleware,
        allow_origins=["*"] if any_origin else origins,
        allow_credentials=not any_origin,
        allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "X-API-Key", "X-Request-ID"],
        expose_headers=["X-Request-ID", "Retry-After"],
    )
