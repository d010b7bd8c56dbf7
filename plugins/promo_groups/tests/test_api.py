"""The declared operations of `/promo-groups` against the contract; authentication; OpenAPI."""

from __future__ import annotations

import pytest
from subsvc_promo_groups.routes import router

from subsvc.api.openapi import build_document

# (method, path, success status, summary) as the reference contract has them
OPERATIONS = [
    ("GET", "/promo-groups", 200, "List Promo Groups"),
    ("POST", "/promo-groups", 201, "Create Promo Group Endpoint"),
    ("GET", "/promo-groups/{group_id}", 200, "Get Promo Group"),
    ("PATCH", "/promo-groups/{group_id}", 200, "Update Promo Group Endpoint"),
    ("DELETE", "/promo-groups/{group_id}", 204, "Delete Promo Group Endpoint"),
]


def test_declared_operations_match_the_contract():
    declared = sorted((e.method, e.path, e.status_code, e.summary) for e in router.endpoints)
    assert declared == sorted(OPERATIONS)
    assert {(e.area, e.tag) for e in router.endpoints} == {("web", "promo-groups")}


@pytest.mark.parametrize(("method", "path"), [(m, p.format(group_id=1)) for m, p, _, _ in OPERATIONS])
async def test_every_operation_needs_an_api_key(anon_client, method, path):
    r = await anon_client.request(method, path, json={"name": "x"})
    assert r.status_code == 401
    assert r.json() == {"detail": "Missing API key"}


def test_request_fields_and_bounds_in_the_schema():
    document = build_document(router.endpoints, title="t", version="1")
    operation = document["paths"]["/promo-groups"]["post"]
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert schema["required"] == ["name"]
    percent = schema["properties"]["server_discount_percent"]
    assert (percent["minimum"], percent["maximum"], percent["default"]) == (0, 100, 0)
    listing = document["paths"]["/promo-groups"]["get"]
    assert {p["name"] for p in listing["parameters"]} == {"limit", "offset"}
