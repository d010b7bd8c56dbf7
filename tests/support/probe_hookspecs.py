"""Extension points the probe plugin offers to plugins that build on it."""

from __future__ import annotations

from subsvc.hookspecs import hookspec


@hookspec
def probe_extra_fields() -> dict[str, object]:  # type: ignore[empty-body]
    """Return fields to add to the probe's answers."""
