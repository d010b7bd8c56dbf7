"""The declared operations of `/users` against the contract; authentication; OpenAPI."""

from __future__ import annotations

import pytest
from subsvc_users.routes import router

from subsvc.api.openapi import build_document

# (method, path, success status, summary) as the reference contract has them; the tag's other
# operations (balance, a user's subscription) belong to the billing and subscriptions plugins
OPERATIONS = [
    ("GET", "/users", 200, "List Users"),
    ("POST", "/users", 201, "Create User Endpoint"),
    ("GET", "/users/by-messenger-id/{messenger_id}", 200, "Get User By Messenger Id Endpoint"),
    ("GET", "/users/{user_id}", 200, "Get User"),
    ("PATCH", "/users/{user_id}", 200, "Update User Endpoint"),
]


def test_declared_operations_match_the_contract():
    declared = sorted((e.method, e.path, e.status_code, e.summary) for e in router.endpoints)
    assert declared == sorted(OPERATIONS)
    assert {(e.area, e.tag) for e in router.endpoints} == {("web", "users")}


@pytest.mark.parametrize(
    ("method", "path"), [(m, p.format(user_id=1, messenger_id=1)) for m, p, _, _ in OPERATIONS]
)
async def test_every_operation_needs_an_api_key(anon_client, method, path):
    r = await anon_client.request(method, path, json={})
    assert r.status_code == 401
    assert r.json() == {"detail": "Missing API key"}


def test_list_parameters_in_the_schema():
    document = build_document(router.endpoints, title="t", version="1")
    parameters = {p["name"]: p for p in document["paths"]["/users"]["get"]["parameters"]}
    assert set(parameters) == {"limit", "offset", "status", "promo_group_id", "search", "page", "per_page"}
    limit = parameters["limit"]["schema"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 200, 50)
    per_page = parameters["per_page"]["schema"]["anyOf"][0]
    assert (per_page["minimum"], per_page["maximum"]) == (1, 200)
    assert parameters["page"]["schema"]["anyOf"][0]["minimum"] == 1
    status = document["components"]["schemas"]["UserStatus"]
    assert status["enum"] == ["active", "blocked", "deleted"]
