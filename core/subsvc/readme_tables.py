"""The tables of a plugin's README that its declaration already says, generated.

Each ``plugins/<name>/README.md`` has the same headings (:data:`HEADINGS`); under some of them
a section between marker comments is generated from the plugin's
:class:`~subsvc.manifest.Plugin` declaration::

    <!-- generated:operations -->
    | Area | Method | Path | Permission | Operation |
    ...
    <!-- /generated:operations -->

Regenerate every README (or the plugins named) from the repository root::

    python -m subsvc.readme_tables [NAME ...]

``--check`` changes nothing and fails, printing that command, when a README is not current.
A missing section is added at the end of its heading's opening text.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import re
import sys
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

from subsvc import hookspecs as core_hookspecs
from subsvc import plugins as plugin_loader
from subsvc.manifest import DECLARED_HOOKS

#: The level-2 headings of every plugin README, in order.
HEADINGS = (
    "What it serves",
    "Rules",
    "Settings",
    "Events",
    "Permissions",
    "For other plugins",
)
#: The generated sections under each heading, in order.
SECTIONS = {
    "What it serves": ("operations", "jobs"),
    "Settings": ("settings",),
    "Events": ("events",),
    "Permissions": ("permissions",),
    "For other plugins": ("public-api", "extension-points", "hooks"),
}
COMMAND = "python -m subsvc.readme_tables"
NONE = "None."


def plugins_root() -> Path:
    """The repository's ``plugins/`` folder (this file is ``core/subsvc/readme_tables.py``)."""
    return Path(__file__).resolve().parents[2] / "plugins"


def _markers(section: str) -> tuple[str, str]:
    return f"<!-- generated:{section} -->", f"<!-- /generated:{section} -->"


def _cell(text: object) -> str:
    """One table cell: a single line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], empty: str = NONE) -> str:
    lines = [[_cell(value) for value in row] for row in rows]
    if not lines:
        return empty
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in lines]
    return "\n".join(out)


def _first_line(obj: object) -> str:
    """The first sentence-line of an object's docstring ('' without one)."""
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def _type_name(annotation: object) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return re.sub(r"\b(typing|collections\.abc|pathlib|datetime|decimal)\.", "", str(annotation))


def _bounds(metadata: Iterable[object]) -> str:
    """A field's numeric bounds as `` (0..200)``, `` (> 0)``, `` (≥ 1)``; '' without any."""
    found = {key: getattr(m, key) for m in metadata for key in ("ge", "gt", "le", "lt") if hasattr(m, key)}
    if "ge" in found and "le" in found:
        return f" ({found['ge']}..{found['le']})"
    signs = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    return "".join(f" ({signs[key]} {value})" for key, value in found.items())


def _default(value: object) -> str:
    if value is None:
        return "unset"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(str(item) for item in value) or "empty"
    if isinstance(value, str) and not value:
        return "empty"
    return str(value)


@dataclass(frozen=True)
class Declaration:
    """What the generated sections are made of: one plugin's declarative hooks' answers."""

    name: str
    hooks: SimpleNamespace
    package: str

    def answer(self, hook: str, empty: Any) -> Any:
        function = getattr(self.hooks, hook, None)
        result = function() if function is not None else None
        return empty if result is None else result


@cache
def declaration(name: str) -> Declaration:
    """Plugin ``name`` as the loader sees it."""
    info = plugin_loader.from_modules([name])[name]
    return Declaration(name, info.module, info.package)


def operations(plugin: Declaration) -> str:
    """Every endpoint: area, method, path, the permission it needs, its summary."""
    rows = []
    for endpoint in plugin.answer("register_routes", []):
        if endpoint.public:
            permission = "public"
        elif endpoint.permission:
            permission = f"`{endpoint.permission}`"
        else:
            permission = "authenticated"
        summary = endpoint.summary or endpoint.name or endpoint.handler.__name__
        if not endpoint.include_in_schema:
            summary += " (not in OpenAPI)"
        rows.append((endpoint.area, endpoint.method, f"`{endpoint.path}`", permission, summary))
    return _table(("Area", "Method", "Path", "Permission", "Operation"), rows, "No endpoints.")


def jobs(plugin: Declaration) -> str:
    """Background jobs: name, when they run, what they do."""
    rows = []
    for job in plugin.answer("register_jobs", []):
        if job.every is None or job.every == 0:
            when = "when enqueued"
        elif callable(job.every):
            when = "periodically (interval from settings) and when enqueued"
        else:
            when = f"every {job.every:g} s and when enqueued"
        rows.append((f"`{job.name}`", when, _first_line(job.run)))
    return _table(("Job", "Runs", "Does"), rows, "No background jobs.")


def settings(plugin: Declaration) -> str:
    """The settings class's fields: environment variable, type, default, meaning."""
    cls = plugin.answer("register_settings", None)
    if cls is None:
        return NONE
    prefix = cls.model_config.get("env_prefix") or ""
    rows = []
    for field_name, field in cls.model_fields.items():
        env = field.alias or f"{prefix}{field_name}".upper()
        default = field.get_default(call_default_factory=True)
        rows.append(
            (
                f"`{env}`",
                f"`{_type_name(field.annotation)}`{_bounds(field.metadata)}",
                f"`{_default(default)}`",
                field.description or "",
            )
        )
    return _table(("Setting", "Type", "Default", "Meaning"), rows)


def events(plugin: Declaration) -> str:
    """The event types it publishes: type, payload model, payload fields."""
    rows = []
    for event_type, payload in plugin.answer("register_events", {}).items():
        fields = ", ".join(f"`{field}`" for field in payload.model_fields)
        rows.append((f"`{event_type}`", f"`{payload.__name__}`", fields))
    return _table(("Event", "Payload", "Payload fields"), rows)


def permissions(plugin: Declaration) -> str:
    """The permission sections it registers and their actions."""
    rows = [
        (f"`{section}`", ", ".join(f"`{action}`" for action in actions))
        for section, actions in plugin.answer("register_permissions", {}).items()
    ]
    return _table(("Section", "Actions"), rows)


def _specs(module: ModuleType) -> list[tuple[str, Callable[..., Any]]]:
    return [(n, f) for n, f in inspect.getmembers(module, inspect.isfunction) if hasattr(f, "subsvc_spec")]


def public_api(plugin: Declaration) -> str:
    """What its public module ``<package>.api`` exports (``__all__``), with each one's
    first docstring line; or that it has none."""
    module_name = f"{plugin.package}.api"
    if importlib.util.find_spec(module_name) is None:
        return f"No public module: other plugins use nothing of `{plugin.package}` but its hooks."
    module = importlib.import_module(module_name)
    rows = []
    for name in sorted(getattr(module, "__all__", ()), key=str.lower):
        value = getattr(module, name)
        kind = "class" if inspect.isclass(value) else "function" if inspect.isroutine(value) else "value"
        rows.append((f"`{name}`", kind, _first_line(value) if kind != "value" else ""))
    return f"Its public module `{module_name}` exports:\n\n" + _table(("Name", "Kind", "What it is"), rows)


def _spec_modules(plugin: Declaration) -> list[ModuleType]:
    """The modules of extension points a plugin declares (one module, or several)."""
    declared = plugin.answer("register_hookspecs", [])
    return [declared] if isinstance(declared, ModuleType) else list(declared)


def extension_points(plugin: Declaration) -> str:
    """The hookspecs it declares for the plugins built on it."""
    modules = _spec_modules(plugin)
    if not modules:
        return "It declares no extension points."
    rows = [(f"`{name}`", _first_line(function)) for module in modules for name, function in _specs(module)]
    where = ", ".join(f"`{module.__name__}`" for module in modules)
    return f"Declared in {where}:\n\n" + _table(("Extension point", "Implementations are asked"), rows)


@cache
def _spec_owners() -> dict[str, str]:
    """``{hook: who declares it}`` over core and every installed plugin."""
    owners = {name: "core" for name, _ in _specs(core_hookspecs)}
    for name in sorted(plugin_loader.discover()):
        for module in _spec_modules(declaration(name)):
            owners.update({hook: f"plugin `{name}`" for hook, _ in _specs(module)})
    return owners


def hooks(plugin: Declaration) -> str:
    """The hooks it implements (beyond its declaration): name, who declares it, where."""
    rows = []
    for hook, function in sorted(vars(plugin.hooks).items()):
        if hook in DECLARED_HOOKS or not hasattr(function, "subsvc_impl"):
            continue
        owner = _spec_owners().get(hook, "an absent plugin")
        rows.append((f"`{hook}`", owner, f"`{function.__module__}`"))
    return _table(("Hook it implements", "Declared by", "In"), rows, "It implements no hooks.")


RENDER: dict[str, Callable[[Declaration], str]] = {
    "operations": operations,
    "jobs": jobs,
    "settings": settings,
    "events": events,
    "permissions": permissions,
    "public-api": public_api,
    "extension-points": extension_points,
    "hooks": hooks,
}


def headings(text: str) -> list[str]:
    """The level-2 headings of a README, in order (fenced code skipped)."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            found.append(line[3:].strip())
    return found


def _insert(text: str, heading: str, block: str) -> str:
    """``block`` at the end of ``heading``'s opening text (before its first subheading)."""
    match = re.search(rf"^## {re.escape(heading)}[ \t]*\n", text, re.MULTILINE)
    if match is None:
        raise ValueError(f"no '## {heading}' heading")
    rest = text[match.end() :]
    end = re.search(r"^##+ ", rest, re.MULTILINE)
    cut = match.end() + (end.start() if end else len(rest))
    before = text[:cut].rstrip("\n")
    return f"{before}\n\n{block}\n\n{text[cut:].lstrip(chr(10))}".rstrip("\n") + "\n"


def render(name: str, text: str) -> str:
    """``text`` (a README) with every generated section of plugin ``name`` current."""
    plugin = declaration(name)
    for heading, sections in SECTIONS.items():
        for section in sections:
            start, end = _markers(section)
            block = f"{start}\n{RENDER[section](plugin)}\n{end}"
            found = re.search(rf"{re.escape(start)}\n.*?{re.escape(end)}", text, re.DOTALL)
            if found:
                text = text[: found.start()] + block + text[found.end() :]
            else:
                text = _insert(text, heading, block)
    return text


def readme(name: str) -> Path:
    return plugins_root() / name / "README.md"


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate (or with ``--check`` verify) the plugin READMEs' generated sections."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="plugins (default: every installed plugin)")
    parser.add_argument("--check", action="store_true", help="change nothing; fail if a README is stale")
    args = parser.parse_args(argv)
    stale = []
    for name in args.names or sorted(plugin_loader.discover()):
        path = readme(name)
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        try:
            wanted = render(name, current)
        except ValueError as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            stale.append(name)
            continue
        if wanted == current:
            continue
        if args.check:
            stale.append(name)
            print(f"{path}: generated sections are not current", file=sys.stderr)
        else:
            path.write_text(wanted, encoding="utf-8")
            print(f"{path}: updated")
    if stale and args.check:
        print(f"fix: {COMMAND} {' '.join(stale)}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
