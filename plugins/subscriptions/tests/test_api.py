"""Cross-cutting behaviour: the declared operations, the OpenAPI body, authentication, bounds."""

from __future__ import annotations

import pytest
from subsvc_subscriptions.models import Subscription
from subsvc_subscriptions.plugin import plugin
from subsvc_subscriptions.schemas import SubscriptionCreateRequest, UserSubscriptionCreateRequest

from subsvc.api.openapi import build_document

register_routes = plugin.all_endpoints

# (method, path, success status, summary, tag) as the reference contract has them
OPERATIONS = [
    ("GET", "/subscriptions", 200, "List Subscriptions", "subscriptions"),
    ("POST", "/subscriptions", 201, "Create Subscription", "subscriptions"),
    ("GET", "/subscriptions/{subscription_id}", 200, "Get Subscription", "subscriptions"),
    ("DELETE", "/subscriptions/{subscription_id}", 200, "Delete Subscription", "subscriptions"),
    ("POST", "/subscriptions/{subscription_id}/extend", 200, "Extend Subscription Endpoint", "subscriptions"),
    (
        "POST",
        "/subscriptions/{subscription_id}/traffic",
        200,
        "Add Subscription Traffic Endpoint",
        "subscriptions",
    ),
    (
        "POST",
        "/subscriptions/{subscription_id}/devices",
        200,
        "Add Subscription Devices Endpoint",
        "subscriptions",
    ),
    (
        "POST",
        "/subscriptions/{subscription_id}/squads",
        200,
        "Add Subscription Squad Endpoint",
        "subscriptions",
    ),
    (
        "DELETE",
        "/subscriptions/{subscription_id}/squads/{squad_uuid}",
        200,
        "Remove Subscription Squad Endpoint",
        "subscriptions",
    ),
    ("POST", "/users/{user_id}/subscription", 201, "Create User Subscription", "users"),
    ("PATCH", "/users/{user_id}/subscription", 201, "Patch User Subscription", "users"),
    ("DELETE", "/users/{user_id}/subscription", 200, "Delete User Subscription", "users"),
]


def test_declared_operations_match_the_contract():
    declared = sorted((e.method, e.path, e.status_code, e.summary, e.tag) for e in register_routes())
    assert declared == sorted(OPERATIONS)
    assert {e.area for e in register_routes()} == {"web"}
    permissions = {(e.method, e.path): e.permission for e in register_routes()}
    reads = {("GET", "/subscriptions"), ("GET", "/subscriptions/{subscription_id}")}
    assert {key for key, permission in permissions.items() if permission == "users:read"} == reads
    assert {p for key, p in permissions.items() if key not in reads} == {"users:subscription"}


def test_openapi_documents_both_day_fields_and_requires_neither():
    document = build_document(register_routes(), title="t", version="1")
    schemas = document["components"]["schemas"]
    for model in (SubscriptionCreateRequest, UserSubscriptionCreateRequest):
        schema = schemas[model.__name__]
        assert {"period_days", "duration_days"} <= set(schema["properties"])
        assert "period_days" not in schema.get("required", [])
        assert "duration_days" not in schema.get("required", [])
    assert schemas["SubscriptionCreateRequest"]["required"] == ["user_id"]
    listing = document["paths"]["/subscriptions"]["get"]
    assert {p["name"]: p["required"] for p in listing["parameters"]} == {
        "limit": False,
        "offset": False,
        "status": False,
        "user_id": False,
        "is_trial": False,
    }
    user_delete = document["paths"]["/users/{user_id}/subscription"]["delete"]
    assert {(p["name"], p["in"]) for p in user_delete["parameters"]} == {
        ("user_id", "path"),
        ("subscription_id", "query"),
    }


@pytest.mark.parametrize(
    ("method", "path"),
    [(m, p.format(subscription_id=1, squad_uuid="s", user_id=1)) for m, p, *_ in OPERATIONS],
)
async def test_every_operation_needs_an_api_key(anon_client, rows, method, path):
    body = {"user_id": 1, "days": 1, "gb": 1, "devices": 1, "squad_uuid": "s", "is_trial": True}
    r = await anon_client.request(method, path, json=body)
    assert r.status_code == 401
    assert r.json() == {"detail": "Missing API key"}
    assert await rows(Subscription) == []


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/subscriptions/{id}/extend", {"days": 0}, "days"),
        ("/subscriptions/{id}/extend", {"days": 36501}, "days"),
        ("/subscriptions/{id}/extend", {}, "days"),
        ("/subscriptions/{id}/traffic", {"gb": 0}, "gb"),
        ("/subscriptions/{id}/traffic", {"gb": 1_000_001}, "gb"),
        ("/subscriptions/{id}/devices", {"devices": 0}, "devices"),
        ("/subscriptions/{id}/devices", {"devices": 10_001}, "devices"),
        ("/subscriptions/{id}/squads", {}, "squad_uuid"),
        ("/subscriptions", {"user_id": 1, "duration_days": 0}, "duration_days"),
        ("/subscriptions", {"user_id": 1, "duration_days": 36501}, "duration_days"),
        ("/subscriptions", {"user_id": 1, "period_days": 0}, "period_days"),
        ("/subscriptions", {"user_id": 1, "period_days": 36501}, "period_days"),
        ("/subscriptions", {"user_id": 1, "traffic_limit_gb": -1}, "traffic_limit_gb"),
        ("/subscriptions", {"user_id": 1, "traffic_limit_gb": 1_000_001}, "traffic_limit_gb"),
        ("/subscriptions", {"user_id": 1, "device_limit": 0}, "device_limit"),
        ("/subscriptions", {"user_id": 1, "device_limit": 10_001}, "device_limit"),
        ("/subscriptions", {"is_trial": True}, "user_id"),
        ("/users/{user}/subscription", {"duration_days": 0}, "duration_days"),
        ("/users/{user}/subscription", {"traffic_limit_gb": 1_000_001}, "traffic_limit_gb"),
        ("/users/{user}/subscription", {"device_limit": 10_001}, "device_limit"),
    ],
)
async def test_bounds_are_422(client, insert_user, make_subscription, outbox, path, body, field):
    user = await insert_user()
    subscription = await make_subscription(user)
    r = await client.post(path.format(id=subscription.id, user=user.id), json=body)
    assert r.status_code == 422
    assert [item["loc"] for item in r.json()["detail"]] == [["body", field]]
    assert await outbox() == []


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=201", "offset=-1", "status=paused", "user_id=x", "is_trial=maybe"],
)
async def test_list_bounds_are_422(client, query):
    r = await client.get(f"/subscriptions?{query}")
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"][0] == "query"


async def test_empty_body_is_422(client, insert_user):
    user = await insert_user()
    r = await client.post(f"/users/{user.id}/subscription")
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
    ]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/subscriptions/999"),
        ("DELETE", "/subscriptions/999"),
        ("POST", "/subscriptions/999/extend"),
        ("POST", "/subscriptions/999/traffic"),
        ("POST", "/subscriptions/999/devices"),
        ("POST", "/subscriptions/999/squads"),
        ("DELETE", "/subscriptions/999/squads/abc"),
        ("GET", "/subscriptions/2147483647"),
        ("POST", "/subscriptions/2147483647/extend"),
    ],
)
async def test_unknown_subscription_is_404(client, outbox, method, path):
    body = {"days": 1, "gb": 1, "devices": 1, "squad_uuid": "s"}
    r = await client.request(method, path, json=body if method == "POST" else None)
    assert r.status_code == 404
    assert r.json() == {"detail": "Subscription not found"}
    assert await outbox() == []


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/subscriptions/99999999999999999999"), ("POST", "/subscriptions/99999999999/extend")],
)
async def test_a_subscription_id_beyond_the_integer_column_is_422(client, outbox, method, path):
    r = await client.request(method, path, json={"days": 1} if method == "POST" else None)
    assert r.status_code == 422
    assert [(e["loc"], e["type"]) for e in r.json()["detail"]] == [
        (["path", "subscription_id"], "less_than_equal")
    ]
    assert await outbox() == []
