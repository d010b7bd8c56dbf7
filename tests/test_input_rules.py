"""The rules every input obeys (subsvc.api.inputs), on the app with every plugin: the
requests that used to answer 500, and the same rules generated over every declared
operation."""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from subsvc.api.endpoint import Endpoint
from subsvc.api.inputs import INT32_MAX, INT64_MAX, MAX_JSON_DEPTH, too_deep
from subsvc.testing import ADMIN_MESSENGER_ID, USER_MESSENGER_ID, bearer_client

BEYOND_INT32 = INT32_MAX + 1
BEYOND_INT64 = INT64_MAX + 1
DEEP = b"[" * 3000 + b"]" * 3000


@pytest.fixture
def subsvc_plugins() -> list[ModuleType | str] | None:
    return None  # every installed plugin


def _types(response) -> set[str]:
    return {item["type"] for item in response.json()["detail"]}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", f"/webhooks/{BEYOND_INT32}", None),
        ("POST", "/pages/faq", {"title": "t", "content": "c", "display_order": BEYOND_INT32}),
        ("GET", f"/transactions?user_id={BEYOND_INT32}", None),
        ("GET", f"/promo-codes?offset={BEYOND_INT64}", None),
        ("GET", f"/users/by-messenger-id/{BEYOND_INT64}", None),
    ],
)
async def test_integers_beyond_their_column_are_422(client, method, path, body):
    response = await client.request(method, path, json=body)
    assert response.status_code == 422, response.text
    assert _types(response) <= {"less_than_equal", "int_parsing"}


async def test_a_bigint_input_takes_values_beyond_int32(client):
    response = await client.get(f"/users/by-messenger-id/{BEYOND_INT32 + 5}")
    assert response.status_code == 404, response.text


async def test_nul_characters_are_refused_where_they_enter(client, clients):
    member = clients["cabinet"]
    search = await client.get("/users", params={"search": "\x00"})
    created = await client.post("/users", json={"messenger_id": 7001, "username": "a\x00b"})
    activated = await member.post("/cabinet/promocode/activate", json={"code": "a\x00b"})
    for response in (search, created, activated):
        assert response.status_code == 422, response.text
        assert _types(response) == {"string_invalid_character"}
    assert created.json()["detail"][0]["loc"] == ["body", "username"]
    assert (await client.get("/users", params={"search": "a"})).status_code == 200


async def test_a_lone_surrogate_is_refused(client, rows):
    body = b'{"messenger_id": 7002, "username": "\\ud800"}'
    response = await client.post("/users", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0] == {
        "type": "string_unicode",
        "loc": ["body", "username"],
        "msg": "Input should be a valid string, unable to parse raw data as a unicode string",
        "input": "\\ud800",
    }
    paired = b'{"messenger_id": 7003, "username": "\\ud83d\\ude00"}'
    assert (await client.post("/users", content=paired)).status_code == 201


@pytest.mark.parametrize(
    "path", ["/cabinet/auth/messenger", "/cabinet/auth/refresh", "/cabinet/auth/email/login"]
)
async def test_deep_json_without_credentials_is_422(anon_client, path):
    response = await anon_client.post(path, content=DEEP, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["type"] == "json_invalid"


def _operations(app, predicate) -> list[Endpoint]:
    return [e for e in app.state.endpoints if e.include_in_schema and predicate(e)]


def _client_of(app, endpoint: Endpoint, clients):
    return clients["anon" if endpoint.public else endpoint.area]


@pytest.fixture
async def cabinet_clients(app, make_user):
    """Bearer clients of a real administrator and a real member."""
    made = []
    for messenger_id in (ADMIN_MESSENGER_ID, USER_MESSENGER_ID):
        user = await make_user(messenger_id=messenger_id)
        made.append(bearer_client(app, app.state.jwt.access_token(user.id, messenger_id=messenger_id)))
    async with made[0] as admin, made[1] as member:
        yield admin, member


@pytest.fixture
def clients(client, anon_client, cabinet_clients):
    admin, member = cabinet_clients
    return {"web": client, "cabinet": member, "cabinet-admin": admin, "anon": anon_client}


def _int_path_names(endpoint: Endpoint) -> list[str]:
    return [i.wire_name for i in endpoint.inputs if i.location == "path" and i.annotation is int]


async def test_every_integer_path_parameter_is_bounded(app, clients):
    """Every operation with an integer path parameter, that parameter beyond INTEGER: 422."""
    endpoints = _operations(app, _int_path_names)
    assert len(endpoints) > 100
    failures = []
    for endpoint in endpoints:
        path = re.sub(
            r"{([^}]+)}",
            lambda m: str(BEYOND_INT32 if m[1] in _int_path_names(endpoint) else 1),
            endpoint.path,
        )
        response = await _client_of(app, endpoint, clients).request(endpoint.method, path, json={})
        if response.status_code != 422:
            failures.append((endpoint.method, path, response.status_code))
    assert failures == []


async def test_every_offset_is_bounded(app, clients):
    endpoints = _operations(
        app, lambda e: any(i.wire_name == "offset" for i in e.inputs if i.location == "query")
    )
    assert len(endpoints) > 20
    failures = []
    for endpoint in endpoints:
        path = re.sub(r"{[^}]+}", "1", endpoint.path)
        response = await _client_of(app, endpoint, clients).request(
            endpoint.method, path, params={"offset": str(BEYOND_INT64)}
        )
        if response.status_code != 422:
            failures.append((endpoint.method, path, response.status_code))
    assert failures == []


async def test_every_body_refuses_deep_json_before_authentication(app, anon_client):
    endpoints = _operations(app, lambda e: e.body is not None)
    assert len(endpoints) > 100
    failures = []
    for endpoint in endpoints:
        path = re.sub(r"{[^}]+}", "1", endpoint.path)
        response = await anon_client.request(
            endpoint.method, path, content=DEEP, headers={"content-type": "application/json"}
        )
        if response.status_code != 422:
            failures.append((endpoint.method, path, response.status_code))
    assert failures == []


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        (b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH, False),
        (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), True),
        (b'{"a": "' + b"[" * 500 + b'"}', False),  # brackets in a string do not nest
        (b'{"a": "\\"[[[", "b": ' + b"{}," * 100 + b"1}", False),  # an escaped quote ends no string
        (b'{"a": ' * 70 + b"1" + b"}" * 70, True),
        (b"[" * 3000, False),  # malformed: the parser reports it
    ],
)
def test_depth_of_json_text(text, deep):
    assert too_deep(text) is deep
