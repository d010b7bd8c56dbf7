"""Extension point of the segments plugin, for the plugins that build on it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from subsvc.hookspecs import hookspec

if TYPE_CHECKING:
    from subsvc_segments.catalogue import Definition


@hookspec
def segment_definitions() -> Mapping[str, Definition]:  # type: ignore[empty-body]
    """Return further segments by name (lower case), or better definitions of built-in ones.

    A :class:`~subsvc_segments.catalogue.Definition` is a condition on the ``users`` table
    (correlated subqueries welcome) with bind parameters computed from the moment of the
    query. Example: the plugin that records subscription events defines ``autopay_failed``
    (an ``autopay_failed`` event in the last 7 days), which is empty until then. Called once,
    when a segment is first resolved.
    """
