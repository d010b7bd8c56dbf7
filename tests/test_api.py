"""The endpoint layer: validation bodies, error bodies, serialisation, unit of work."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import Endpoint, Query, RequestValidationError

GOOD = {"text": "hi", "amount": 5}


async def test_inputs_from_every_location_are_parsed(client):
    r = await client.post(
        "/probe/items/7?limit=3&kind=b&tags=x&tags=y", json=GOOD, headers={"X-Trace": "abc"}
    )
    assert r.status_code == 200
    assert r.json() == {"item_id": 7, "limit": 3, "kind": "b", "tags": ["x", "y"], "trace": "abc", **GOOD}


async def test_defaults_apply_when_inputs_are_absent(client):
    r = await client.post("/probe/items/1", json=GOOD)
    assert r.json() == {"item_id": 1, "limit": 50, "kind": "a", "tags": None, "trace": None, **GOOD}


async def test_every_failing_input_is_reported_at_once(client):
    r = await client.post(
        "/probe/items/abc?limit=0&kind=z",
        json={"text": "", "amount": 101},
        headers={"X-Trace": "far-too-long"},
    )
    assert r.status_code == 422
    detail = r.json()["detail"]
    by_loc = {tuple(item["loc"]): item for item in detail}
    assert set(by_loc) == {
        ("path", "item_id"),
        ("query", "limit"),
        ("query", "kind"),
        ("header", "x-trace"),
        ("body", "text"),
        ("body", "amount"),
    }
    assert by_loc[("path", "item_id")]["type"] == "int_parsing"
    assert by_loc[("path", "item_id")]["input"] == "abc"
    assert by_loc[("query", "limit")] == {
        "type": "greater_than_equal",
        "loc": ["query", "limit"],
        "msg": "Input should be greater than or equal to 1",
        "input": "0",
        "ctx": {"ge": 1},
    }
    assert by_loc[("query", "kind")]["type"] == "literal_error"
    assert by_loc[("body", "text")]["type"] == "string_too_short"
    assert by_loc[("body", "amount")]["ctx"] == {"le": 100}
    assert by_loc[("header", "x-trace")]["type"] == "string_too_long"


async def test_missing_body_fields_and_missing_body(client):
    r = await client.post("/probe/items/1", json={})
    assert r.status_code == 422
    assert [item["loc"] for item in r.json()["detail"]] == [["body", "text"], ["body", "amount"]]
    assert r.json()["detail"][0]["type"] == "missing"

    r = await client.post("/probe/items/1")
    assert r.status_code == 422
    assert r.json() == {
        "detail": [{"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}]
    }


async def test_malformed_json_is_json_invalid_with_its_position(client):
    r = await client.post(
        "/probe/items/1", content=b'{"text": "a",', headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422
    assert r.json() == {
        "detail": [
            {
                "type": "json_invalid",
                "loc": ["body", 13],
                "msg": "JSON decode error",
                "input": {},
                "ctx": {"error": "Expecting property name enclosed in double quotes"},
            }
        ]
    }


async def test_unknown_route_and_wrong_method(client):
    r = await client.get("/no/such/thing")
    assert (r.status_code, r.json()) == (404, {"detail": "Not Found"})
    r = await client.delete("/probe/notes")
    assert (r.status_code, r.json()) == (405, {"detail": "Method Not Allowed"})


async def test_body_over_the_limit_is_413(client):
    r = await client.post(
        "/probe/items/1", content=b"x" * 2_000_000, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413
    assert "larger than" in r.json()["detail"]


async def test_streamed_body_over_the_limit_is_413(client):
    async def chunks():
        for _ in range(40):
            yield b"y" * 65536

    r = await client.post("/probe/items/1", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


async def test_unexpected_error_is_a_logged_500_with_request_id(client, caplog):
    with caplog.at_level(logging.ERROR, logger="subsvc.errors"):
        r = await client.get("/probe/boom")
    assert r.status_code == 500
    assert r.json() == {"detail": "Internal Server Error"}
    assert "secret internal detail" not in r.text
    request_id = r.headers["x-request-id"]
    assert any(request_id in record.getMessage() for record in caplog.records)


async def test_request_id_is_echoed_when_given_and_safe(client):
    r = await client.get("/health", headers={"X-Request-ID": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    r = await client.get("/health", headers={"X-Request-ID": "bad id with spaces"})
    assert r.headers["x-request-id"] != "bad id with spaces"
    assert len(r.headers["x-request-id"]) == 32
    again = await client.get("/health")
    assert again.headers["x-request-id"] != r.headers["x-request-id"]


async def test_handler_write_is_committed(client):
    r = await client.post("/probe/notes", json=GOOD)
    assert r.status_code == 201
    note = r.json()
    assert note["text"] == "hi"
    assert note["created_at"].endswith("Z")
    assert [n["id"] for n in (await client.get("/probe/notes")).json()] == [note["id"]]


async def test_failed_operation_leaves_the_database_as_it_was(client):
    r = await client.post("/probe/notes?fail_after_write=true", json=GOOD)
    assert (r.status_code, r.json()) == (409, {"detail": "Conflict after the write"})
    assert (await client.get("/probe/notes")).json() == []


@pytest.mark.parametrize(
    ("kind", "status", "detail"),
    [
        ("fixed", 409, "Refused after the write"),
        ("message", 409, "The note is refused: too long"),
        ("read", 410, "Note 7 is gone"),
    ],
)
async def test_a_declared_domain_error_answers_as_declared_and_rolls_back(client, kind, status, detail):
    r = await client.post(f"/probe/refusals/{kind}")
    assert (r.status_code, r.json()) == (status, {"detail": detail})
    assert (await client.get("/probe/notes")).json() == []


@pytest.mark.parametrize("origin_setting", [["https://admin.example"]])
async def test_cors_allows_configured_origin(app, client, origin_setting):
    # CORS is off in the default test settings: no header is added.
    r = await client.get("/health", headers={"Origin": "https://admin.example"})
    assert "access-control-allow-origin" not in r.headers


class _Out(BaseModel):
    value: int


async def _model() -> _Out: ...
async def _models() -> list[_Out]: ...
async def _nothing() -> None: ...
async def _response() -> Response: ...
async def _either() -> _Out | Response: ...


@pytest.mark.parametrize(
    ("handler", "model"), [(_model, _Out), (_models, list[_Out]), (_nothing, None), (_response, None)]
)
def test_the_response_model_is_the_return_annotation_unless_given(handler, model):
    assert Endpoint("GET", "/x", handler, "web", "t").response_model == model
    assert (
        Endpoint("GET", "/x", handler, "web", "t", response_model=dict[str, int]).response_model
        == dict[str, int]
    )


def test_a_handler_that_may_return_a_response_names_its_model():
    with pytest.raises(TypeError, match="give its response_model"):
        Endpoint("GET", "/x", _either, "web", "t")
    assert Endpoint("GET", "/x", _either, "web", "t", response_model=_Out).response_model is _Out


@dataclass(frozen=True)
class _Window:
    since: int | None = None
    kind: Annotated[str, Query(max_length=3)] = "all"


async def _windowed(window: Annotated[_Window, Query()], limit: int = 10) -> dict[str, Any]:
    return {"window": asdict(window), "limit": limit}


def _query(query: str) -> Request:
    return Request(
        {"type": "http", "method": "GET", "path": "/x", "query_string": query.encode(), "headers": []}
    )


async def test_a_query_group_is_its_fields_and_reaches_the_handler_whole():
    endpoint = Endpoint("GET", "/x", _windowed, "web", "t", public=True)
    assert list(endpoint.models["query"].model_fields) == ["since", "kind", "limit"]
    answer = await endpoint(_query("since=3&limit=2"))
    assert json.loads(answer.body) == {"window": {"since": 3, "kind": "all"}, "limit": 2}
    with pytest.raises(RequestValidationError) as refused:
        await endpoint(_query("kind=long"))
    assert [error["loc"] for error in refused.value.errors] == [["query", "kind"]]


async def test_a_query_group_field_may_not_repeat_another_input():
    async def clash(window: Annotated[_Window, Query()], since: int = 0) -> None: ...

    with pytest.raises(TypeError, match="a query group's field has the name of another input"):
        Endpoint("GET", "/x", clash, "web", "t")
