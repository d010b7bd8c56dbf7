"""Cross-cutting behaviour of `/pages`: the declared operations, authentication, validation."""

from __future__ import annotations

import pytest
from subsvc_pages.models import FaqPage, PublicOffer, ServiceRule
from subsvc_pages.routes import router

# (method, path, success status, summary) as the reference contract has them
OPERATIONS = [
    ("GET", "/pages/service-rules", 200, "Get Service Rules"),
    ("PUT", "/pages/service-rules", 200, "Update Service Rules"),
    ("DELETE", "/pages/service-rules", 204, "Clear Service Rules"),
    ("GET", "/pages/service-rules/history", 200, "Get Service Rules History"),
    ("POST", "/pages/service-rules/history/{rule_id}/restore", 201, "Restore Service Rules Version"),
    ("GET", "/pages/public-offer", 200, "Get Public Offer"),
    ("PUT", "/pages/public-offer", 200, "Update Public Offer"),
    ("GET", "/pages/privacy-policy", 200, "Get Privacy Policy"),
    ("PUT", "/pages/privacy-policy", 200, "Update Privacy Policy"),
    ("GET", "/pages/faq", 200, "List Faq Pages"),
    ("POST", "/pages/faq", 201, "Create Faq Page"),
    ("GET", "/pages/faq/status", 200, "Get Faq Status"),
    ("PUT", "/pages/faq/status", 200, "Update Faq Status"),
    ("POST", "/pages/faq/reorder", 200, "Reorder Faq Pages"),
    ("GET", "/pages/faq/{page_id}", 200, "Get Faq Page"),
    ("PUT", "/pages/faq/{page_id}", 200, "Update Faq Page"),
    ("DELETE", "/pages/faq/{page_id}", 204, "Delete Faq Page"),
]


def _error(response) -> tuple[list, str]:
    """Where and what the first validation error of a 422 response is."""
    item = response.json()["detail"][0]
    return item["loc"], item["type"]


def test_declared_operations_match_the_contract():
    declared = sorted((e.method, e.path, e.status_code, e.summary) for e in router.endpoints)
    assert declared == sorted(OPERATIONS)
    assert {(e.area, e.tag) for e in router.endpoints} == {("web", "pages")}


def test_optional_body_of_faq_status_update():
    endpoint = next(e for e in router.endpoints if (e.method, e.path) == ("PUT", "/pages/faq/status"))
    assert endpoint.body is not None and not endpoint.body.field.is_required()
    assert {i.name: i.location for i in endpoint.inputs} == {
        "language": "query",
        "is_enabled": "query",
        "payload": "body",
    }


@pytest.mark.parametrize(
    ("method", "path"), [(m, p.format(rule_id=1, page_id=1)) for m, p, _, _ in OPERATIONS]
)
async def test_every_operation_needs_an_api_key(anon_client, rows, method, path):
    r = await anon_client.request(
        method, path, json={"content": "x", "title": "x", "items": [], "is_enabled": True}
    )
    assert r.status_code == 401
    assert r.json() == {"detail": "Missing API key"}
    assert await rows(ServiceRule) == await rows(PublicOffer) == await rows(FaqPage) == []


async def test_wrong_api_key_is_401(anon_client):
    r = await anon_client.get("/pages/faq", headers={"X-API-Key": "not-a-token"})
    assert r.status_code == 401
    assert r.json() == {"detail": "Invalid or expired API key"}


@pytest.mark.parametrize(
    "path",
    [
        "/pages/service-rules",
        "/pages/service-rules/history",
        "/pages/public-offer",
        "/pages/faq",
        "/pages/faq/status",
    ],
)
@pytest.mark.parametrize(
    ("language", "error", "limit"), [("r", "string_too_short", 2), ("abcdefghijk", "string_too_long", 10)]
)
async def test_language_query_length_is_2_to_10(client, path, language, error, limit):
    r = await client.get(path, params={"language": language})
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["loc"] == ["query", "language"]
    assert item["type"] == error
    assert item["input"] == language
    assert item["ctx"] == ({"min_length": 2} if error == "string_too_short" else {"max_length": 10})
    assert len(r.json()["detail"]) == 1


async def test_language_of_ten_characters_is_accepted(client):
    r = await client.get("/pages/faq/status", params={"language": "abcdefghij"})
    assert r.status_code == 200
    assert r.json()["requested_language"] == "abcdefghij"


async def test_body_language_bounds(client, rows):
    r = await client.put("/pages/service-rules", json={"language": "r", "content": "x"})
    assert r.status_code == 422
    assert _error(r) == (["body", "language"], "string_too_short")
    r = await client.put("/pages/public-offer", json={"language": "abcdefghijk", "content": "x"})
    assert r.status_code == 422
    assert _error(r) == (["body", "language"], "string_too_long")
    assert await rows(ServiceRule) == await rows(PublicOffer) == []


async def test_language_made_only_of_a_region_falls_to_the_default(client):
    r = await client.put("/pages/service-rules", json={"language": "-US", "content": "x"})
    assert r.status_code == 200
    assert r.json()["language"] == "ru"


async def test_malformed_json_is_422(client):
    r = await client.put(
        "/pages/service-rules", content=b'{"content": ', headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "json_invalid"
