"""Plugin discovery, selection and ordering.

Installed plugins are entry points in the group ``subsvc.plugins`` (name = plugin name,
value = the module holding the hook implementations). Core's own parts are internal
plugins registered through the same hooks. Operators narrow the set with
``SUBSVC_PLUGINS`` / ``SUBSVC_PLUGINS_DISABLED``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from subsvc import hookspecs

ENTRY_POINT_GROUP = "subsvc.plugins"
INTERNAL_PLUGINS = (
    "subsvc.default_plugins.tokens",
    "subsvc.default_plugins.cabinet_jwt",
    "subsvc.default_plugins.health",
    "subsvc.default_plugins.plugins",
    "subsvc.default_plugins.events",
    "subsvc.default_plugins.docs",
    "subsvc.default_plugins.messenger",
)


class PluginError(RuntimeError):
    """The plugin selection cannot run: unknown name, missing dependency or a cycle."""


@dataclass(frozen=True)
class PluginInfo:
    """What `subsvc plugins` and `GET /plugins` show of a plugin."""

    name: str
    version: str
    module: ModuleType = field(repr=False, compare=False)
    requires: tuple[str, ...] = ()
    enabled: bool = True
    internal: bool = False


def _module_info(name: str, module: ModuleType, version: str, *, internal: bool = False) -> PluginInfo:
    requires = tuple(getattr(module, "REQUIRES", ()))
    return PluginInfo(name=name, version=version, module=module, requires=requires, internal=internal)


def discover() -> dict[str, PluginInfo]:
    """Every installed plugin, by name (not yet filtered by settings)."""
    found: dict[str, PluginInfo] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        module = ep.load()
        if not isinstance(module, ModuleType):
            raise PluginError(f"entry point {ep.name!r} must name a module, got {module!r}")
        version = ep.dist.version if ep.dist is not None else "0"
        found[ep.name] = _module_info(ep.name, module, version)
    return found


def from_modules(modules: list[ModuleType | str]) -> dict[str, PluginInfo]:
    """Plugins given directly (tests, embedding): modules or dotted module names.

    A module's plugin name is its ``PLUGIN_NAME`` attribute, else the last part of its
    package name without ``subsvc_`` (``subsvc_pages.plugin`` -> ``pages``).
    """
    found: dict[str, PluginInfo] = {}
    for item in modules:
        module = importlib.import_module(item) if isinstance(item, str) else item
        package = module.__name__.split(".")[0]
        name = getattr(module, "PLUGIN_NAME", package.removeprefix("subsvc_"))
        found[name] = _module_info(name, module, str(getattr(module, "__version__", "0")))
    return found


def select(available: dict[str, PluginInfo], only: list[str] | None, disabled: list[str]) -> list[PluginInfo]:
    """Apply the operator's choice and return every plugin, enabled ones in dependency order
    first, then the disabled ones (``enabled=False``) for listing."""
    for setting, names in (("SUBSVC_PLUGINS", only or []), ("SUBSVC_PLUGINS_DISABLED", disabled)):
        unknown = sorted(set(names) - set(available))
        if unknown:
            known = ", ".join(sorted(available)) or "none"
            raise PluginError(f"{setting} names unknown plugin(s): {', '.join(unknown)} (installed: {known})")
    wanted = {name for name in available if (only is None or name in only) and name not in disabled}
    for name in sorted(wanted):
        for dep in available[name].requires:
            if dep not in available:
                raise PluginError(f"plugin {name!r} requires plugin {dep!r}, which is not installed")
            if dep not in wanted:
                raise PluginError(f"plugin {name!r} requires plugin {dep!r}, which is disabled by settings")
    ordered = _topological([available[name] for name in sorted(wanted)])
    rest = [_replace_enabled(available[name]) for name in sorted(set(available) - wanted)]
    return ordered + rest


def _replace_enabled(info: PluginInfo) -> PluginInfo:
    return PluginInfo(
        info.name, info.version, info.module, info.requires, enabled=False, internal=info.internal
    )


def _topological(plugins: list[PluginInfo]) -> list[PluginInfo]:
    by_name = {p.name: p for p in plugins}
    ordered: list[PluginInfo] = []
    state: dict[str, str] = {}

    def visit(info: PluginInfo, path: tuple[str, ...]) -> None:
        if state.get(info.name) == "done":
            return
        if state.get(info.name) == "visiting":
            raise PluginError("plugin dependency cycle: " + " -> ".join((*path, info.name)))
        state[info.name] = "visiting"
        for dep in info.requires:
            visit(by_name[dep], (*path, info.name))
        state[info.name] = "done"
        ordered.append(info)

    for info in plugins:
        visit(info, ())
    return ordered


def internal_plugins() -> list[PluginInfo]:
    """Core's own parts (API tokens, health, docs) as plugins."""
    from subsvc import __version__

    infos = []
    for dotted in INTERNAL_PLUGINS:
        module = importlib.import_module(dotted)
        name = "core." + dotted.rsplit(".", 1)[1]
        infos.append(_module_info(name, module, __version__, internal=True))
    return infos


class PluginManager(pluggy.PluginManager):
    """pluggy's manager with subsvc's hookspecs and the chosen plugins, in order."""

    def __init__(self, plugins: list[PluginInfo]) -> None:
        super().__init__("subsvc")
        self.add_hookspecs(hookspecs)
        self.infos = plugins
        self._implementations: dict[str, list[tuple[Callable[..., Any], tuple[str, ...]]]] = {}
        for info in plugins:
            if info.enabled:
                self.register(info.module, name=info.name)
        for _, extension_points in self.each("register_hookspecs"):
            self.add_hookspecs(extension_points)

    @property
    def enabled(self) -> list[PluginInfo]:
        return [info for info in self.infos if info.enabled]

    def each(self, hook: str, **kwargs: Any) -> list[tuple[PluginInfo, Any]]:
        """Call a declarative hook once per plugin, in dependency order: ``[(plugin, result)]``.

        pluggy calls implementations last-registered first; declarations follow the
        dependency order instead, so each plugin's implementation is called on its own
        (with just the arguments it names, as pluggy would).
        """
        impls = {impl.plugin_name: impl for impl in getattr(self.hook, hook).get_hookimpls()}
        results = []
        for info in self.enabled:
            impl = impls.get(info.name)
            if impl is None:
                continue
            result = impl.function(*(kwargs[name] for name in impl.argnames))
            if result is not None:
                results.append((info, result))
        return results

    def implementations(self, hook: str) -> list[tuple[Callable[..., Any], tuple[str, ...]]]:
        """A hook's implementations in pluggy's calling order (last registered first), with
        the argument names each takes; computed once per hook."""
        cached = self._implementations.get(hook)
        if cached is None:
            impls = getattr(self.hook, hook).get_hookimpls()
            cached = self._implementations[hook] = [(i.function, tuple(i.argnames)) for i in reversed(impls)]
        return cached

    async def first_result(self, hook: str, **kwargs: Any) -> Any:
        """Call a ``firstresult`` runtime hook on the request path: the first implementation
        that answers other than ``None`` wins; an awaitable answer is awaited.

        Equivalent to ``self.hook.<hook>(**kwargs)`` plus awaiting, without pluggy's
        general dispatch (which costs more than the check it runs).
        """
        for function, names in self.implementations(hook):
            result = function(*[kwargs[name] for name in names])
            if result is None:
                continue
            if inspect.isawaitable(result):
                result = await result
                if result is None:
                    continue
            return result
        return None

    def migration_dirs(self) -> list[Path]:
        """Every installed plugin's migration folder, enabled or not: the database keeps
        the tables of a disabled plugin, so Alembic must still know its revisions."""
        dirs = []
        for info in self.infos:
            impl = getattr(info.module, "register_migrations", None)
            if impl is not None and hasattr(impl, "subsvc_impl"):
                folder = impl()
                if folder is not None:
                    dirs.append(Path(folder))
        return dirs

    async def each_async(self, hook: str, *, reverse: bool = False, **kwargs: Any) -> None:
        """Call a runtime hook (``startup``/``shutdown``) per plugin in order, awaiting each
        one's awaitable before the next plugin's."""
        impls = {impl.plugin_name: impl for impl in getattr(self.hook, hook).get_hookimpls()}
        for info in reversed(self.enabled) if reverse else self.enabled:
            impl = impls.get(info.name)
            if impl is None:
                continue
            result = impl.function(*(kwargs[name] for name in impl.argnames))
            if inspect.isawaitable(result):
                await result


def load(
    only: list[str] | None = None,
    disabled: list[str] | None = None,
    modules: list[ModuleType | str] | None = None,
) -> PluginManager:
    """Build the plugin manager: internal plugins, then installed (or given) ones."""
    available = from_modules(modules) if modules is not None else discover()
    chosen = select(available, only, disabled or [])
    return PluginManager(internal_plugins() + chosen)
