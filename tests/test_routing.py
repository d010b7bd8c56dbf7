"""IndexedRouter: the same answers as trying every route in order, from fewer routes."""

from __future__ import annotations

import httpx2
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from subsvc.api.routing import IndexedRouter


def named(name: str):
    async def endpoint(request):
        return PlainTextResponse(f"{name} {dict(request.path_params)}")

    return endpoint


ROUTES = [
    Route("/pages/faq/status", named("status"), methods=["GET", "PUT"]),
    Route("/pages/faq/{page_id}", named("page"), methods=["GET"]),
    Route("/pages/faq", named("list"), methods=["GET"]),
    Route("/users/{user_id:int}/balance", named("balance"), methods=["POST"]),
    Route("/files/{rest:path}", named("files"), methods=["GET"]),
    Route("/{anything}/ping", named("ping"), methods=["GET"]),
]


async def ask(method: str, path: str) -> tuple[int, str]:
    app = Starlette()
    app.router = IndexedRouter(list(ROUTES))
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://t") as http:
        r = await http.request(method, path)
        return r.status_code, r.text


async def test_static_paths_win_and_parameters_are_captured():
    assert await ask("GET", "/pages/faq/status") == (200, "status {}")
    assert await ask("GET", "/pages/faq/12") == (200, "page {'page_id': '12'}")
    assert await ask("GET", "/pages/faq") == (200, "list {}")
    assert await ask("POST", "/users/5/balance") == (200, "balance {'user_id': 5}")
    assert await ask("GET", "/files/a/b/c.txt") == (200, "files {'rest': 'a/b/c.txt'}")
    assert await ask("GET", "/x/ping") == (200, "ping {'anything': 'x'}")


async def test_wrong_method_is_405_and_unknown_paths_404():
    assert (await ask("DELETE", "/pages/faq/status"))[0] == 405
    assert (await ask("POST", "/pages/faq/12"))[0] == 405
    assert (await ask("GET", "/users/abc/balance"))[0] == 404
    assert (await ask("GET", "/pages/faq/1/2"))[0] == 404
    assert (await ask("GET", "/nothing"))[0] == 404


def test_only_routes_of_the_same_shape_are_tried():
    router = IndexedRouter(list(ROUTES))
    assert [r.path for r in router.candidates("/pages/faq/status")] == [
        "/pages/faq/status",
        "/pages/faq/{page_id}",
        "/files/{rest:path}",
        "/{anything}/ping",
    ]
    assert [r.path for r in router.candidates("/users/1/balance")] == [
        "/users/{user_id:int}/balance",
        "/files/{rest:path}",
        "/{anything}/ping",
    ]
