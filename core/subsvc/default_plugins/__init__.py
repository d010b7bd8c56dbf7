"""Core's own parts, registered as plugins through the same hooks as everything else."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from subsvc.api import Endpoint, Router
from subsvc.hookspecs import hookimpl

Hooks = tuple[Callable[[], Sequence[Endpoint]], Callable[[], Sequence[dict[str, str]]]]


def serving(router: Router, description: str) -> Hooks:
    """``register_routes`` and ``register_openapi_tags`` of a part that serves ``router``:
    its endpoints, and its tag with ``description``."""

    @hookimpl
    def register_routes() -> Sequence[Endpoint]:
        return router.endpoints

    @hookimpl
    def register_openapi_tags() -> Sequence[dict[str, str]]:
        return [{"name": router.tag, "description": description}]

    return register_routes, register_openapi_tags
