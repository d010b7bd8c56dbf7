"""Templates: the reference's three defaults exist from the start; read and change them on the
Web API and the Cabinet Admin API."""

from __future__ import annotations

import pytest

ADMIN = "/cabinet/admin/promo-offers"
WEB = "/promo-offers"

DEFAULT_TYPES = ["extend_discount", "purchase_discount", "test_access"]


@pytest.mark.parametrize("base", [WEB, ADMIN])
async def test_the_default_templates_are_listed_by_offer_type(client, admin, base):
    http = client if base == WEB else admin
    response = await http.get(f"{base}/templates")
    assert response.status_code == 200
    items = response.json()["items"]
    assert [item["offer_type"] for item in items] == DEFAULT_TYPES
    by_type = {item["offer_type"]: item for item in items}
    assert by_type["extend_discount"]["discount_percent"] == 20
    assert by_type["purchase_discount"]["valid_hours"] == 48
    assert by_type["test_access"]["test_duration_hours"] == 24
    assert all(item["is_active"] and item["test_squad_uuids"] == [] for item in items)
    assert "{discount_percent}" in by_type["extend_discount"]["message_text"]


async def test_restarting_does_not_seed_twice(app, client):
    from subsvc_promo_offers.hooks import startup

    await startup(app)
    response = await client.get(f"{WEB}/templates")
    assert len(response.json()["items"]) == 3


@pytest.mark.parametrize("base", [WEB, ADMIN])
async def test_a_template_is_read_and_changed(client, admin, base):
    http = client if base == WEB else admin
    (first, *_) = (await http.get(f"{base}/templates")).json()["items"]
    response = await http.get(f"{base}/templates/{first['id']}")
    assert response.json() == first

    changes = {
        "name": "Renewal",
        "valid_hours": 12,
        "discount_percent": 30,
        "active_discount_hours": 6,
        "test_squad_uuids": [" sq-1 ", "", "sq-2", "sq-1"],
        "is_active": False,
    }
    response = await http.patch(f"{base}/templates/{first['id']}", json=changes)
    assert response.status_code == 200
    changed = response.json()
    assert changed["name"] == "Renewal"
    assert (changed["valid_hours"], changed["discount_percent"], changed["active_discount_hours"]) == (
        12,
        30,
        6,
    )
    assert changed["test_squad_uuids"] == ["sq-1", "sq-2"]
    assert changed["is_active"] is False
    assert changed["message_text"] == first["message_text"]  # absent: unchanged
    assert changed["updated_at"] > first["updated_at"]
    assert (await http.get(f"{base}/templates/{first['id']}")).json() == changed


@pytest.mark.parametrize(
    ("base", "detail"), [(WEB, "Promo offer template not found"), (ADMIN, "Template not found")]
)
async def test_an_unknown_template_is_404_and_one_beyond_integer_422(client, admin, base, detail):
    http = client if base == WEB else admin
    for template_id in ("999", "2147483647"):
        response = await http.get(f"{base}/templates/{template_id}")
        assert (response.status_code, response.json()) == (404, {"detail": detail})
        response = await http.patch(f"{base}/templates/{template_id}", json={"name": "x"})
        assert (response.status_code, response.json()) == (404, {"detail": detail})
    for response in (
        await http.get(f"{base}/templates/99999999999"),
        await http.patch(f"{base}/templates/99999999999", json={"name": "x"}),
    ):
        assert response.status_code == 422
        assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
            (["path", "template_id"], "less_than_equal")
        ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"valid_hours": 0}, "valid_hours"),
        ({"discount_percent": -1}, "discount_percent"),
        ({"bonus_amount_kopeks": -5}, "bonus_amount_kopeks"),
        ({"active_discount_hours": 0}, "active_discount_hours"),
        ({"test_duration_hours": 0}, "test_duration_hours"),
    ],
)
async def test_out_of_bounds_changes_are_422(admin, body, field):
    (first, *_) = (await admin.get(f"{ADMIN}/templates")).json()["items"]
    response = await admin.patch(f"{ADMIN}/templates/{first['id']}", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", field]


async def test_blank_texts_are_refused_and_change_nothing(admin):
    (first, *_) = (await admin.get(f"{ADMIN}/templates")).json()["items"]
    response = await admin.patch(
        f"{ADMIN}/templates/{first['id']}", json={"valid_hours": 5, "button_text": "  "}
    )
    assert (response.status_code, response.json()) == (400, {"detail": "button_text must not be empty"})
    assert (await admin.get(f"{ADMIN}/templates/{first['id']}")).json() == first
