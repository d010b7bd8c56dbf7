"""A plugin's declaration: what it contributes, said once.

A plugin's entry point (group ``subsvc.plugins``) names a :class:`Plugin` instance::

    # subsvc_pages/plugin.py
    plugin = Plugin(
        models=[ServiceRule, FaqPage],
        endpoints=[router],
        permissions={"info_pages": ["read", "create", "edit", "delete"]},
        tags={"pages": "Information pages: service rules, public offer, privacy policy and FAQ."},
    )

    # pyproject.toml
    [project.entry-points."subsvc.plugins"]
    pages = "subsvc_pages.plugin:plugin"

Everything else is found, not declared: the plugin's name is the entry point's name; its
version and the plugins it requires come from its distribution's metadata (a dependency on
``subsvc-users`` means it requires the plugin ``users``); its Alembic revisions are the
package's ``migrations/versions`` folder. Runtime hooks and the extension points of other
plugins are ``@hookimpl`` functions in the modules named by ``hooks``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from subsvc.hookspecs import hookimpl

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_settings import BaseSettings

    from subsvc.api import Endpoint, Router
    from subsvc.api.errors import ErrorAnswer
    from subsvc.jobs import Job

#: The declarative hooks a manifest answers; a plugin implementing one of them as well is
#: told to declare it instead.
DECLARED_HOOKS = {
    "register_hookspecs": "hookspecs",
    "register_settings": "settings",
    "register_models": "models",
    "register_migrations": "(the package's migrations/versions folder)",
    "register_routes": "endpoints",
    "register_permissions": "permissions",
    "register_events": "events",
    "register_jobs": "jobs",
    "register_auth_responses": "auth_responses",
    "register_errors": "errors",
    "register_openapi_tags": "tags",
}


class ManifestError(RuntimeError):
    """A plugin's declaration contradicts itself (e.g. one hook implemented twice)."""


@dataclass(frozen=True, kw_only=True)
class Plugin:
    """What one plugin contributes to subsvc.

    - ``models``: SQLModel table classes (tests clean them; Alembic compares them).
    - ``endpoints``: :class:`~subsvc.api.Router` objects or single endpoints.
    - ``permissions``: the sections it introduces, ``{section: [action, ...]}``.
    - ``tags``: OpenAPI tag descriptions, ``{tag: description}``.
    - ``settings``: its settings class (a :class:`subsvc.settings.PluginSettings`), read
      from the environment at start; ``MySettings.of(app)`` is the instance.
    - ``events``: the event types it publishes and their payload models.
    - ``jobs``: its background jobs.
    - ``auth_responses``: per area, the statuses its ``authenticate`` answers beyond 401.
    - ``errors``: its domain errors and their HTTP answers (see ``register_errors``).
    - ``hookspecs``: a module of extension points it offers to the plugins built on it.
    - ``hooks``: modules (or single functions) whose ``@hookimpl`` functions are its runtime
      hooks and its implementations of other plugins' extension points.
    """

    models: Sequence[type[Any]] = ()
    endpoints: Sequence[Router | Endpoint] = ()
    permissions: Mapping[str, Sequence[str]] = field(default_factory=dict)
    tags: Mapping[str, str] = field(default_factory=dict)
    settings: type[BaseSettings] | None = None
    events: Mapping[str, type[BaseModel]] = field(default_factory=dict)
    jobs: Sequence[Job] = ()
    auth_responses: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    errors: Mapping[type[Exception], ErrorAnswer] = field(default_factory=dict)
    hookspecs: ModuleType | None = None
    hooks: Sequence[ModuleType | Callable[..., Any]] = ()

    def all_endpoints(self) -> list[Endpoint]:
        """The declared endpoints, routers unfolded, in declaration order."""
        found: list[Endpoint] = []
        for item in self.endpoints:
            found += getattr(item, "endpoints", None) or [item]  # a Router, or one Endpoint
        return found

    def hook_object(self, name: str) -> SimpleNamespace:
        """The object registered with pluggy for this plugin: its declarations answered as
        declarative hooks, plus every ``@hookimpl`` function of ``hooks``."""
        implementations = _implementations(self.hooks, name)
        for hook, field_name in DECLARED_HOOKS.items():
            if hook in implementations:
                raise ManifestError(
                    f"plugin {name!r} implements {hook} in its hooks: "
                    f"declare {field_name} in its Plugin(...) instead"
                )
        declared: dict[str, Any] = {
            "register_models": lambda: list(self.models),
            "register_routes": lambda: self.all_endpoints(),
            "register_permissions": lambda: self.permissions,
            "register_openapi_tags": lambda: [
                {"name": tag, "description": text} for tag, text in self.tags.items()
            ],
            "register_events": lambda: self.events,
            "register_jobs": lambda: list(self.jobs),
            "register_auth_responses": lambda: self.auth_responses,
            "register_errors": lambda: self.errors,
            "register_settings": lambda: self.settings,
            "register_hookspecs": lambda: self.hookspecs,
        }
        return SimpleNamespace(
            **{hook: hookimpl(function) for hook, function in declared.items()}, **implementations
        )


def _implementations(
    hooks: Iterable[ModuleType | Callable[..., Any]], plugin: str
) -> dict[str, Callable[..., Any]]:
    """``{hook name: function}`` of every ``@hookimpl`` function the items hold; one per hook."""
    found: dict[str, Callable[..., Any]] = {}
    for item in hooks:
        candidates = (
            inspect.getmembers(item, callable) if isinstance(item, ModuleType) else [(item.__name__, item)]
        )
        for attribute, function in candidates:
            if not hasattr(function, "subsvc_impl"):
                continue
            if attribute in found and found[attribute] is not function:
                raise ManifestError(f"plugin {plugin!r} implements {attribute} twice (in its hooks)")
            found[attribute] = function
    return found
