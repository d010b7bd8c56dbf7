"""The plugin's operations: the reference's tags and counts (401 without credentials:
tests/test_plugin_permissions.py)."""

from __future__ import annotations

TAGS = {"main-menu": 9, "menu-layout": 33, "Admin Menu Layout": 3, "Admin Button Styles": 3}


def test_the_operations_of_each_tag(app):
    ours = [e for e in app.state.endpoints if e.tag in TAGS]
    assert {tag: sum(1 for e in ours if e.tag == tag) for tag in TAGS} == TAGS
