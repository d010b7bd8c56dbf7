"""The import contract: a plugin's source imports another plugin only through that plugin's
published module (``subsvc_x`` or ``subsvc_x.api``; ``subsvc_x.testing`` from its own testing
modules), and only plugins it requires (its distribution's dependencies). Core imports no plugin.

Tests and migrations are not plugin source. A plugin that uses another it does not require
(an optional collaboration) does so through a hook the other implements with
``@hookimpl(optionalhook=True)``, never by importing it.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from pathlib import Path

from subsvc.plugins import from_modules

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIRS = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))


def _imports(source: Path) -> Iterator[tuple[int, str, list[str]]]:
    """``(line, module, names)`` of each absolute import of a ``subsvc_`` package."""
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("subsvc_"):
                yield node.lineno, node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("subsvc_"):
                    yield node.lineno, alias.name, []


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except ModuleNotFoundError:
        return False


def _breaches(plugin_dir: Path) -> Iterator[str]:
    name = plugin_dir.name
    package = f"subsvc_{name}"
    requires = set(from_modules([name])[name].requires)
    for source in sorted((plugin_dir / package).rglob("*.py")):
        if {"tests", "migrations"} & set(source.relative_to(plugin_dir).parts):
            continue
        where = source.relative_to(ROOT)
        for _line, module, names in _imports(source):
            parts = module.split(".")
            other = parts[0]
            if other == package:
                continue
            other_name = other.removeprefix("subsvc_")
            if other_name not in requires:
                yield f"{where}: {module} (plugin {other_name!r} is not required)"
            published = len(parts) == 1 or parts[1] == "api"
            if parts[1:2] == ["testing"] and source.stem.startswith("testing"):
                published = True
            if not published:
                yield f"{where}: {module}"
            elif len(parts) == 1:
                yield from (
                    f"{where}: {module}.{item} (a private module)"
                    for item in names
                    if item != "api" and _is_module(f"{module}.{item}")
                )


def test_core_imports_no_plugin():
    offenders = [
        f"{source.relative_to(ROOT)}:{line}: {module}"
        for source in sorted((ROOT / "core" / "subsvc").rglob("*.py"))
        for line, module, _ in _imports(source)
    ]
    assert offenders == []


def test_plugins_import_each_other_only_through_published_modules_they_require():
    found = sorted({breach for plugin_dir in PLUGIN_DIRS for breach in _breaches(plugin_dir)})
    assert found == []
