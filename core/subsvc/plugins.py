"""Plugin discovery, selection and ordering.

Installed plugins are entry points in the group ``subsvc.plugins``: name = plugin name,
value = the plugin's :class:`subsvc.manifest.Plugin` (``subsvc_pages.plugin:plugin``); its
version and requirements come from its distribution's metadata. A module of ``@hookimpl``
functions (with ``REQUIRES``) is accepted too: core's own parts are such modules. Operators
narrow the set with ``SUBSVC_PLUGINS`` / ``SUBSVC_PLUGINS_DISABLED``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.metadata import Distribution, EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from subsvc import hookspecs
from subsvc.manifest import ManifestError, Plugin

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
    """What `subsvc plugins` and `GET /plugins` show of a plugin, and what the loader needs."""

    name: str
    version: str
    module: Any = field(repr=False, compare=False)  # the object registered with pluggy
    requires: tuple[str, ...] = ()
    enabled: bool = True
    internal: bool = False
    package: str = ""
    migrations: Path | None = field(default=None, compare=False)


def _module_info(name: str, module: ModuleType, version: str, *, internal: bool = False) -> PluginInfo:
    """A plugin written as a module of ``@hookimpl`` functions."""
    requires = tuple(getattr(module, "REQUIRES", ()))
    folder = None
    impl = getattr(module, "register_migrations", None)
    if impl is not None and hasattr(impl, "subsvc_impl"):
        folder = impl()
    return PluginInfo(
        name=name,
        version=version,
        module=module,
        requires=requires,
        internal=internal,
        package=module.__name__.split(".")[0],
        migrations=Path(folder) if folder is not None else None,
    )


def _manifest_info(name: str, plugin: Plugin, package: str, dist: Distribution | None) -> PluginInfo:
    """A plugin declared with :class:`Plugin`: version and requirements from ``dist``."""
    try:
        hooks = plugin.hook_object(name)
    except ManifestError as exc:
        raise PluginError(str(exc)) from None
    spec = importlib.util.find_spec(package)
    locations = spec.submodule_search_locations if spec is not None else None
    folder = Path(locations[0]) / "migrations" / "versions" if locations else None
    return PluginInfo(
        name=name,
        version=dist.version if dist is not None else "0",
        module=hooks,
        requires=_required_plugins(dist) if dist is not None else (),
        package=package,
        migrations=folder if folder is not None and folder.is_dir() else None,
    )


def _entry_info(ep: EntryPoint) -> PluginInfo:
    loaded = ep.load()
    if isinstance(loaded, Plugin):
        return _manifest_info(ep.name, loaded, ep.module.split(".")[0], ep.dist)
    if isinstance(loaded, ModuleType):
        return _module_info(ep.name, loaded, ep.dist.version if ep.dist is not None else "0")
    raise PluginError(
        f"entry point {ep.name!r} ({ep.value}) must name a subsvc.manifest.Plugin instance "
        f"(e.g. 'subsvc_{ep.name}.plugin:plugin') or a module of @hookimpl functions, got {loaded!r}"
    )


def _canonical(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


@cache
def _installed() -> dict[str, EntryPoint]:
    """Every installed plugin's entry point, by plugin name (read once per process)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _required_plugins(dist: Distribution) -> tuple[str, ...]:
    """The installed plugins ``dist`` depends on (its ``Requires-Dist`` without extras)."""
    by_distribution = {
        _canonical(ep.dist.name): name for name, ep in _installed().items() if ep.dist is not None
    }
    required = []
    for requirement in dist.requires or ():
        if "extra" in requirement.partition(";")[2]:
            continue
        match = re.match(r"[A-Za-z0-9._-]+", requirement)
        name = by_distribution.get(_canonical(match.group(0))) if match else None
        if name is not None:
            required.append(name)
    return tuple(required)


def discover() -> dict[str, PluginInfo]:
    """Every installed plugin, by name (not yet filtered by settings)."""
    return {name: _entry_info(ep) for name, ep in _installed().items()}


def from_modules(items: list[ModuleType | str]) -> dict[str, PluginInfo]:
    """Plugins given directly (tests, embedding), with the installed plugins they require.

    An item is an installed plugin's name (``"pages"``), its package or module
    (``"subsvc_pages"``, ``"subsvc_pages.plugin"``), or a module not installed as a plugin
    holding a ``plugin`` declaration or ``@hookimpl`` functions (named by its
    ``PLUGIN_NAME``, else its package without ``subsvc_``; version 0, no requirements).
    """
    by_package = {ep.module.split(".")[0]: name for name, ep in _installed().items()}
    found: dict[str, PluginInfo] = {}
    for item in items:
        if isinstance(item, str) and item in _installed():
            found[item] = _entry_info(_installed()[item])
            continue
        module = importlib.import_module(item) if isinstance(item, str) else item
        package = module.__name__.split(".")[0]
        installed = by_package.get(package)
        if installed is not None and not hasattr(module, "PLUGIN_NAME"):
            found[installed] = _entry_info(_installed()[installed])
            continue
        name = getattr(module, "PLUGIN_NAME", package.removeprefix("subsvc_"))
        declared = getattr(module, "plugin", None)
        if isinstance(declared, Plugin):
            found[name] = _manifest_info(name, declared, package, None)
        else:
            found[name] = _module_info(name, module, str(getattr(module, "__version__", "0")))
    missing = [dep for info in found.values() for dep in info.requires if dep not in found]
    while missing:
        dep = missing.pop()
        if dep not in found and dep in _installed():
            found[dep] = _entry_info(_installed()[dep])
            missing += found[dep].requires
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
    return replace(info, enabled=False)


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
        self._check_implementations()

    def _check_implementations(self) -> None:
        """Refuse an implementation of a hook nobody declares (a misspelt name would
        otherwise never be called). An implementation of another plugin's extension point
        that may be absent says ``@hookimpl(optionalhook=True)``."""
        for name, caller in vars(self.hook).items():
            if name.startswith("_") or caller.has_spec():
                continue
            for impl in caller.get_hookimpls():
                if not impl.optionalhook:
                    raise PluginError(
                        f"plugin {impl.plugin_name!r} implements {name!r}, which no enabled plugin declares: "
                        "check the name, or mark it @hookimpl(optionalhook=True) when it implements "
                        "the extension point of a plugin that may be absent"
                    )

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

    async def call_all(self, hook: str, **kwargs: Any) -> list[Any]:
        """Call every implementation of a hook (a plugin's extension point, typically), in
        pluggy's order, each awaited before the next is called (they may share a session):
        the answers other than ``None``. Arguments are passed by name, as pluggy would."""
        answers = []
        for function, names in self.implementations(hook):
            result = function(*[kwargs[name] for name in names])
            if inspect.isawaitable(result):
                result = await result
            if result is not None:
                answers.append(result)
        return answers

    def migration_dirs(self) -> list[Path]:
        """Every installed plugin's migration folder, enabled or not: the database keeps
        the tables of a disabled plugin, so Alembic must still know its revisions."""
        return [info.migrations for info in self.infos if info.migrations is not None]

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
