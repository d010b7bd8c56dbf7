"""Every plugin's README has the same headings, and its generated tables say what its
declaration says (``python -m subsvc.readme_tables`` regenerates them)."""

from __future__ import annotations

import re
from importlib.metadata import entry_points

import pytest

from subsvc import readme_tables
from subsvc.plugins import ENTRY_POINT_GROUP

PLUGINS = sorted(p.name for p in readme_tables.plugins_root().iterdir() if (p / "pyproject.toml").exists())


def _text(name: str) -> str:
    path = readme_tables.readme(name)
    assert path.exists(), f"{path} is missing"
    return path.read_text(encoding="utf-8")


def test_every_plugin_folder_is_an_installed_plugin() -> None:
    assert sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)) == PLUGINS


@pytest.mark.parametrize("name", PLUGINS)
def test_title_then_one_line(name: str) -> None:
    lines = _text(name).splitlines()
    assert lines[0] == f"# {name}"
    assert lines[1] == "" and lines[2].strip() and lines[3] == "", "the title is followed by one line"
    assert lines[4] == f"## {readme_tables.HEADINGS[0]}"


@pytest.mark.parametrize("name", PLUGINS)
def test_headings_in_order(name: str) -> None:
    assert readme_tables.headings(_text(name)) == list(readme_tables.HEADINGS)


@pytest.mark.parametrize("name", PLUGINS)
def test_no_section_is_empty(name: str) -> None:
    parts = re.split(r"^## .*$", _text(name), flags=re.MULTILINE)[1:]
    empty = [h for h, body in zip(readme_tables.HEADINGS, parts, strict=False) if not body.strip()]
    assert not empty, f"say 'None.' in an empty section: {empty}"


@pytest.mark.parametrize("name", PLUGINS)
def test_generated_sections_are_current(name: str) -> None:
    text = _text(name)
    assert readme_tables.render(name, text) == text, (
        f"plugins/{name}/README.md is not current: run `{readme_tables.COMMAND} {name}`"
    )


def test_a_stale_table_is_found() -> None:
    text = _text("pages")
    stale = text.replace("`info_pages:delete`", "`info_pages:read`", 1)
    assert stale != text
    assert readme_tables.render("pages", stale) == text
