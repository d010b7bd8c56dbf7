"""Every hook of subsvc: the table of contents of the system.

A plugin is a module (found through the entry-point group ``subsvc.plugins``) whose
functions are marked ``@hookimpl``. Declarative hooks are called once, when the app is
built, for every enabled plugin in dependency order; runtime hooks are called while the
app runs. A plugin implements only the hooks it needs.

A plugin module may also set ``REQUIRES = ("users", ...)``: the plugins it builds on.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Awaitable, Mapping, Sequence

    from pydantic import BaseModel
    from pydantic_settings import BaseSettings
    from sqlalchemy.ext.asyncio import AsyncSession
    from starlette.applications import Starlette
    from starlette.requests import HTTPConnection, Request
    from starlette.responses import Response

    from subsvc.api import Endpoint
    from subsvc.api.errors import ErrorAnswer
    from subsvc.auth.principal import Grants, Principal
    from subsvc.health import WebhookStatus
    from subsvc.jobs import Job

hookspec = pluggy.HookspecMarker("subsvc")
hookimpl = pluggy.HookimplMarker("subsvc")


# --- declarative hooks: called once while the app is built -------------------------------


@hookspec
def register_hookspecs() -> ModuleType | None:
    """Return a module of further hookspecs (marked with this module's ``hookspec``) that the
    plugin offers as extension points to the plugins that build on it.

    Example: the users plugin declares a hook through which the subscriptions plugin adds
    each user's subscriptions to the user record. Called first, before any other hook.
    """


@hookspec
def register_settings() -> type[BaseSettings] | None:
    """Return the plugin's pydantic-settings class (read from the environment like core's).

    The instance is available as ``app.state.settings_of[plugin_name]``. An invalid value
    stops start-up with a message naming the variable.
    """


@hookspec
def register_models() -> Sequence[type[Any]]:  # type: ignore[empty-body]
    """Return the plugin's SQLModel table classes.

    Importing them registers the tables in the shared metadata; the list is what tests use
    to clean tables and what Alembic's autogenerate compares against.
    """


@hookspec
def register_migrations() -> Path | None:
    """Return the folder of the plugin's Alembic revisions (its own branch, labelled with
    the plugin's name; its first revision ``depends_on`` the branches it needs).

    Called for every installed plugin, enabled or not: a disabled plugin's tables stay in
    the database and its revisions stay known.
    """


@hookspec
def register_routes() -> Sequence[Endpoint]:  # type: ignore[empty-body]
    """Return the plugin's endpoints (see :mod:`subsvc.api`): routing, authentication,
    validation, serialisation and the OpenAPI operation, declared once each."""


@hookspec
def register_permissions() -> Mapping[str, Sequence[str]]:  # type: ignore[empty-body]
    """Return the permission sections the plugin introduces: ``{section: [action, ...]}``.

    Permission identifiers are ``section:action``; the registry of all plugins is
    ``app.state.permissions``.
    """


@hookspec
def register_events() -> Mapping[str, type[BaseModel]]:  # type: ignore[empty-body]
    """Return the event types the plugin publishes and their payload models:
    ``{"user.created": UserCreatedPayload}``.

    Only declared types can be published (:meth:`subsvc.events.EventBus.publish` validates
    the payload against its model); the catalogue is ``app.state.events.catalogue``.
    """


@hookspec
def register_jobs() -> Sequence[Job]:  # type: ignore[empty-body]
    """Return the plugin's background jobs (:class:`subsvc.jobs.Job`: a unique name such as
    ``"webhooks.deliver"``, an ``async def run(app, **kwargs)``, and optionally ``every``
    seconds to also run it periodically in every worker).

    Enqueue one with ``app.state.jobs.enqueue(name, **kwargs)`` or, to run after a
    transaction commits, ``app.state.jobs.enqueue_after_commit(session, name, **kwargs)``.
    A job is a nudge: the work it does must be recorded in the database, so that a lost
    message or a restart loses nothing (a periodic job picks it up).
    """


@hookspec
def register_auth_responses() -> Mapping[str, Mapping[int, str]]:  # type: ignore[empty-body]
    """Return, per area (``"cabinet"``, ``"cabinet-admin"``), the statuses this plugin's
    ``authenticate`` answers beyond 401, with their descriptions (e.g. ``{403: "Account
    blocked"}``): every endpoint of that area documents them in OpenAPI.
    """


@hookspec
def register_errors() -> Mapping[type[Exception], ErrorAnswer]:  # type: ignore[empty-body]
    """Return the plugin's domain errors and their HTTP answers, declared once:
    ``{NotFound: (404, "Promo code not found"), RuleBroken: 400, Refused: lambda e: (e.status, e.detail)}``.

    An int keeps the exception's message as the detail; a pair fixes it; a function reads
    both from the exception. An endpoint that raises one (a subclass too) answers it; the
    request's transaction is rolled back first. A type declared twice stops the start.
    """


@hookspec
def register_openapi_tags() -> Sequence[Mapping[str, str]]:  # type: ignore[empty-body]
    """Return OpenAPI tag objects (``{"name": ..., "description": ...}``) for the plugin's tags."""


@hookspec
def register_commands(cli: Any) -> None:
    """Add sub-commands to the ``subsvc`` command line.

    ``cli`` is the :class:`argparse._SubParsersAction` of the ``subsvc`` parser: call
    ``cli.add_parser(name)`` and ``set_defaults(handler=callable)``; the handler receives
    the parsed arguments and returns the exit status.
    """


# --- runtime hooks -----------------------------------------------------------------------


@hookspec
def startup(app: Starlette) -> Awaitable[None] | None:
    """Called once when the app starts serving, after the database is ready.

    Return an awaitable to do asynchronous work (e.g. ensure seed rows, start a listener).
    """


@hookspec
def shutdown(app: Starlette) -> Awaitable[None] | None:
    """Called once when the app stops, in reverse plugin order; may return an awaitable."""


@hookspec(firstresult=True)
def authenticate(connection: HTTPConnection, area: str) -> Awaitable[Principal | None] | Principal | None:
    """Identify the caller of an endpoint in ``area`` (``web``, ``cabinet`` or ``cabinet-admin``).

    Return ``None`` when this plugin does not handle the area; otherwise a principal or an
    awaitable of one. Raise :class:`subsvc.api.HTTPError` (401) for a bad credential. The
    first plugin that returns something wins.
    """


@hookspec(firstresult=True)
def permission_allowed(
    principal: Principal, permission: str, request: Request | None
) -> Awaitable[bool | None] | bool | None:
    """Decide whether ``principal`` may use ``permission`` (``section:action``).

    Return ``True``/``False`` (or an awaitable of it) to decide, ``None`` to abstain. When
    every plugin abstains, only administrators (``ADMIN_IDS``/``ADMIN_EMAILS``) pass.
    """


@hookspec(firstresult=True)
def user_grants(session: AsyncSession, user_id: int) -> Awaitable[Grants | None] | Grants | None:
    """The roles, permissions and level of cabinet user ``user_id`` (the RBAC plugin answers).

    Called when a cabinet session is issued or refreshed (the access token carries them as
    claims) and by ``/cabinet/auth/me/permissions``. Return ``None`` to abstain; when every
    plugin abstains the user holds no roles.
    """


@hookspec
def health_webhooks(app: Starlette) -> Awaitable[Sequence[WebhookStatus]] | Sequence[WebhookStatus] | None:
    """Return the incoming webhooks the plugin serves or stands for, for ``GET /health/unified``:
    each a :class:`~subsvc.health.WebhookStatus` (its group ``payment``, ``messenger`` or
    ``panel``, its name, whether it is configured, the path it is served at). Read settings,
    not the network: the endpoint is public."""


@hookspec(firstresult=True)
def handle_exception(request: Request, exc: Exception) -> Response | None:
    """Turn an exception the endpoint layer does not know into a response, or return ``None``
    to let it become a logged 500 carrying the request id."""
