"""4.1.0's ``lava_product_id``: stored on create, changed and cleared on update, in the detail
and the list."""

from __future__ import annotations

BASE = "/cabinet/admin/tariffs"


async def test_lava_product_id_is_kept_changed_and_cleared(admin):
    created = (await admin.post(BASE, json={"name": "Lava", "lava_product_id": " prod-1 "})).json()
    assert created["lava_product_id"] == "prod-1"
    assert (await admin.get(f"{BASE}/{created['id']}")).json()["lava_product_id"] == "prod-1"
    [item] = (await admin.get(BASE)).json()["tariffs"]
    assert item["lava_product_id"] == "prod-1"

    kept = (await admin.put(f"{BASE}/{created['id']}", json={"name": "Lava 2"})).json()
    assert kept["lava_product_id"] == "prod-1"
    changed = (await admin.put(f"{BASE}/{created['id']}", json={"lava_product_id": "prod-2"})).json()
    assert changed["lava_product_id"] == "prod-2"
    cleared = (await admin.put(f"{BASE}/{created['id']}", json={"lava_product_id": None})).json()
    assert cleared["lava_product_id"] is None


async def test_a_tariff_without_one_says_null(admin):
    created = (await admin.post(BASE, json={"name": "Plain"})).json()
    assert created["lava_product_id"] is None


async def test_too_long_or_blank_is_422(admin):
    response = await admin.post(BASE, json={"name": "X", "lava_product_id": "x" * 256})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "lava_product_id"]
    assert (await admin.post(BASE, json={"name": "X", "lava_product_id": "  "})).status_code == 422
