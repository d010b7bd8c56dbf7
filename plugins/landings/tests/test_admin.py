"""Landing pages for administrators over HTTP: create (201), reserved and taken slugs, the
discount window, order, toggle, delete keeping the purchases, permissions."""

from __future__ import annotations

from subsvc_landings.models import GuestPurchase

BASE = "/cabinet/admin/landings"


async def test_create_list_update_order_toggle_delete(admin, make_tariff, make_landing):
    tariff = await make_tariff()
    first = await make_landing([tariff.id], features=[{"icon": "⚡", "title": {"en": "Fast"}}])
    second = await make_landing([tariff.id])
    assert first["features"][0]["title"] == {"en": "Fast"}
    assert (first["is_active"], first["gift_enabled"]) == (True, True)
    ordered = await admin.put(f"{BASE}/order", json={"landing_ids": [second["id"], first["id"]]})
    assert ordered.status_code == 200
    listed = (await admin.get(BASE)).json()
    assert [item["id"] for item in listed] == [second["id"], first["id"]]
    assert listed[0]["tariff_count"] == 1 and listed[0]["purchase_stats"]["total"] == 0
    changed = await admin.put(
        f"{BASE}/{first['id']}", json={"subtitle": {"en": "Sub"}, "discount_percent": 20}
    )
    assert changed.status_code == 200
    assert (changed.json()["subtitle"], changed.json()["discount_percent"]) == ({"en": "Sub"}, 20)
    toggled = await admin.post(f"{BASE}/{first['id']}/toggle")
    assert toggled.json()["is_active"] is False
    assert (await admin.get(f"/cabinet/landing/{first['slug']}")).status_code == 404
    deleted = await admin.delete(f"{BASE}/{first['id']}")
    assert (deleted.status_code, deleted.json()) == (200, {"success": True})
    missing = await admin.get(f"{BASE}/{first['id']}")
    assert (missing.status_code, missing.json()["detail"]) == (404, "Landing page not found")


async def test_reserved_taken_slugs_and_the_discount_window_are_refused(admin, make_landing):
    page = await make_landing([])
    reserved = await admin.post(BASE, json={"slug": "admin"})
    assert (reserved.status_code, reserved.json()["detail"]) == (
        400,
        'Slug "admin" is reserved and cannot be used',
    )
    taken = await admin.post(BASE, json={"slug": page["slug"]})
    assert (taken.status_code, taken.json()["detail"]) == (
        400,
        f'Landing page with slug "{page["slug"]}" already exists',
    )
    window = {"discount_starts_at": "2030-01-02T00:00:00Z", "discount_ends_at": "2030-01-01T00:00:00Z"}
    bad = await admin.put(f"{BASE}/{page['id']}", json=window)
    assert (bad.status_code, bad.json()["detail"]) == (
        400,
        "discount_starts_at must be before discount_ends_at",
    )
    invalid = await admin.post(BASE, json={"slug": "Not Valid"})
    assert invalid.status_code == 422


async def test_members_without_the_permission_are_refused(member):
    assert (await member.get(BASE)).status_code == 403


async def test_nulls_naive_times_and_ids_no_row_can_have_change_nothing_they_should_not(
    admin, anon_client, make_tariff, make_landing
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    naive = {"title": None, "discount_percent": 10, "discount_starts_at": "2000-01-01T00:00:00"}
    changed = await admin.put(f"{BASE}/{page['id']}", json=naive)
    assert changed.status_code == 200 and changed.json()["title"] == page["title"]
    shown = (await anon_client.get(f"/cabinet/landing/{page['slug']}")).json()
    assert shown["tariffs"][0]["periods"][0]["price_kopeks"] == 17_910
    for huge in (2**31, 2**62):
        assert (await admin.get(f"{BASE}/{huge}")).status_code in (404, 422)
    ordered = await admin.put(f"{BASE}/order", json={"landing_ids": [2**40, page["id"]]})
    assert ordered.status_code in (200, 422)


async def test_deleting_a_page_keeps_its_purchases(admin, anon_client, make_tariff, make_landing, rows):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    body = {
        "tariff_id": tariff.id,
        "period_days": 30,
        "contact_type": "email",
        "contact_value": "a@b.example",
        "payment_method": "yookassa",
    }
    assert (await anon_client.post(f"/cabinet/landing/{page['slug']}/purchase", json=body)).status_code == 200
    assert (await admin.delete(f"{BASE}/{page['id']}")).status_code == 200
    [purchase] = await rows(GuestPurchase)
    assert (purchase.landing_id, purchase.status) == (None, "pending")


async def test_the_purchases_list_is_newest_first_and_paginated(
    admin, anon_client, make_tariff, make_landing
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    tokens = []
    for number in range(3):
        body = {
            "tariff_id": tariff.id,
            "period_days": 30,
            "contact_type": "email",
            "contact_value": f"buyer{number}@b.example",
            "payment_method": "yookassa",
        }
        created = await anon_client.post(f"/cabinet/landing/{page['slug']}/purchase", json=body)
        tokens.append(created.json()["purchase_token"])
    listed = f"{BASE}/{page['id']}/purchases"
    first = (await admin.get(listed, params={"limit": 2})).json()
    rest = (await admin.get(listed, params={"limit": 2, "offset": 2})).json()
    assert (first["total"], rest["total"]) == (3, 3)
    assert [item["token"] for item in first["items"] + rest["items"]] == tokens[::-1]
    assert (await admin.get(listed, params={"status": "delivered"})).json() == {"items": [], "total": 0}
    assert (await admin.get(listed, params={"limit": 101})).status_code == 422
