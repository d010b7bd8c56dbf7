"""The Web API's and the cabinet's campaign records: validation, duplicates, changes, toggle,
one deletion rule."""

from __future__ import annotations

from subsvc.testing import ADMIN_MESSENGER_ID, USER_MESSENGER_ID

ADMIN = "/cabinet/admin/campaigns"
BALANCE = {
    "name": " Spring ",
    "start_parameter": " spring ",
    "bonus_type": "balance",
    "balance_bonus_kopeks": 100,
}


async def test_web_api_records(client):
    made = await client.post("/campaigns", json=BALANCE)
    assert made.status_code == 201, made.text
    campaign = made.json()
    assert (campaign["name"], campaign["start_parameter"], campaign["balance_bonus_rubles"]) == (
        "Spring",
        "spring",
        1.0,
    )
    assert (campaign["registrations_count"], campaign["created_by"], campaign["subscription_squads"]) == (
        0,
        None,
        [],
    )
    for bad in (
        {**BALANCE, "balance_bonus_kopeks": 0},
        {**BALANCE, "bonus_type": "subscription"},
        {**BALANCE, "bonus_type": "tariff", "tariff_id": 1},
        {**BALANCE, "name": "  "},
        {**BALANCE, "balance_bonus_kopeks": -1},
    ):
        assert (await client.post("/campaigns", json=bad)).status_code == 422, bad
    duplicate = await client.post("/campaigns", json=BALANCE)
    assert (duplicate.status_code, duplicate.json()) == (
        400,
        {"detail": "Campaign with this start_parameter already exists"},
    )
    same = await client.patch(f"/campaigns/{campaign['id']}", json={})
    assert same.json()["updated_at"] == campaign["updated_at"]
    changed = await client.patch(f"/campaigns/{campaign['id']}", json={"is_active": False, "name": "Later"})
    assert (changed.json()["is_active"], changed.json()["name"]) == (False, "Later")
    other = (await client.post("/campaigns", json={**BALANCE, "start_parameter": "other"})).json()
    taken = await client.patch(f"/campaigns/{other['id']}", json={"start_parameter": "spring"})
    assert taken.status_code == 400
    listed = (await client.get("/campaigns", params={"include_inactive": "false"})).json()
    assert ([c["start_parameter"] for c in listed["items"]], listed["total"]) == (["other"], 1)
    assert (listed["limit"], listed["offset"]) == (50, 0)
    assert (await client.delete(f"/campaigns/{campaign['id']}")).status_code == 204
    missing = await client.patch(f"/campaigns/{campaign['id']}", json={})
    assert (missing.status_code, missing.json()) == (404, {"detail": "Campaign not found"})
    assert (await client.delete(f"/campaigns/{campaign['id']}")).status_code == 404


async def test_cabinet_records(admin, insert_user):
    await insert_user(messenger_id=ADMIN_MESSENGER_ID)
    body = {"name": "Tariff", "start_parameter": "t-1", "bonus_type": "tariff", "tariff_duration_days": 30}
    for extra, detail in (
        ({}, "Tariff ID is required for tariff bonus type"),
        ({"tariff_id": 999}, "Tariff not found"),
        ({"bonus_type": "none", "partner_user_id": 999}, "Partner not found or not approved"),
    ):
        refused = await admin.post(ADMIN, json={**body, **extra})
        assert (refused.status_code, refused.json()) == (400, {"detail": detail}), extra
    assert (await admin.post(ADMIN, json={**body, "start_parameter": "a b"})).status_code == 422
    made = await admin.post(ADMIN, json={"name": "Free", "start_parameter": "free", "bonus_type": "none"})
    assert made.status_code == 200, made.text
    campaign = made.json()
    assert (campaign["created_by"], campaign["tariff"], campaign["partner_user_id"]) == (1, None, None)
    again = await admin.post(ADMIN, json={"name": "Free", "start_parameter": "free", "bonus_type": "none"})
    assert again.json() == {"detail": "Campaign with start parameter 'free' already exists"}
    toggled = await admin.post(f"{ADMIN}/{campaign['id']}/toggle")
    assert toggled.json() == {"id": campaign["id"], "is_active": False, "message": "Campaign deactivated"}
    renamed = await admin.put(f"{ADMIN}/{campaign['id']}", json={"name": "Renamed"})
    assert (renamed.json()["name"], renamed.json()["is_active"]) == ("Renamed", False)
    assert (await admin.get(f"{ADMIN}/{campaign['id']}")).json()["name"] == "Renamed"
    assert (await admin.get(f"{ADMIN}/404")).status_code == 404
    for path in ("available-servers", "available-tariffs", "available-partners"):
        assert (await admin.get(f"{ADMIN}/{path}")).json() == []
    deleted = await admin.delete(f"{ADMIN}/{campaign['id']}")
    assert deleted.json() == {"message": "Campaign deleted successfully"}


async def test_members_are_refused(member, insert_user):
    await insert_user(messenger_id=ADMIN_MESSENGER_ID)
    await insert_user(messenger_id=USER_MESSENGER_ID)
    assert (await member.get(ADMIN)).status_code == 403
