"""A router that finds a request's route without trying every route in turn.

Starlette's router tests each route's pattern in order; with hundreds of endpoints that
is the largest cost of a request. This router keeps Starlette's matching and its order, but
only asks the routes that can match: those with exactly this path, and those whose path has
as many segments and the same first segment.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Route, Router, WebSocketRoute
from starlette.types import Receive, Scope, Send


def _shape(path: str) -> tuple[int, str]:
    segments = path.strip("/").split("/")
    return len(segments), segments[0]


class IndexedRouter(Router):
    """Starlette's router with the candidate routes of a path looked up, not scanned."""

    def __init__(self, routes: Sequence[BaseRoute], **kwargs: object) -> None:
        super().__init__(routes=list(routes), **kwargs)  # type: ignore[arg-type]
        self.exact: dict[str, list[BaseRoute]] = defaultdict(list)
        self.by_shape: dict[tuple[int, str], list[BaseRoute]] = defaultdict(list)
        self.anywhere: list[BaseRoute] = []
        for route in routes:
            path = getattr(route, "path", None)
            if not isinstance(route, Route | WebSocketRoute) or path is None or ":path}" in path:
                self.anywhere.append(route)
            elif "{" not in path:
                self.exact[path].append(route)
            elif path.strip("/").split("/")[0].startswith("{"):
                self.anywhere.append(route)
            else:
                self.by_shape[_shape(path)].append(route)

    def candidates(self, path: str) -> list[BaseRoute]:
        """Routes that may match ``path``, in declaration order within each group."""
        found = self.exact.get(path, [])
        shaped = self.by_shape.get(_shape(path))
        if shaped:
            found = found + shaped
        return found + self.anywhere if self.anywhere else found

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await super().app(scope, receive, send)
            return
        scope.setdefault("router", self)
        partial = None
        for route in self.candidates(scope["path"]):
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                scope.update(child_scope)
                await route.handle(scope, receive, send)
                return
            if match is Match.PARTIAL and partial is None:
                partial = (route, child_scope)
        if partial is not None:
            route, child_scope = partial
            scope.update(child_scope)
            await route.handle(scope, receive, send)
            return
        await self.default(scope, receive, send)
