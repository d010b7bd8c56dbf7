"""`/promo-codes` (Web API): the same codes, rules and answers as the cabinet administration,
with the creator named in the body."""

from __future__ import annotations

import pytest
from subsvc_promocodes.models import PromoCode, PromoCodeUse

WEB = "/promo-codes"
ACTIVATE = "/cabinet/promocode/activate"


async def test_create_read_list_change_delete(client, make_user, rows):
    creator = await make_user()
    body = {
        "code": " autumn ",
        "type": "subscription_days",
        "subscription_days": 14,
        "created_by": creator["id"],
    }
    created = await client.post(WEB, json=body)
    assert created.status_code == 201
    code = created.json()
    assert (code["code"], code["type"], code["subscription_days"], code["created_by"]) == (
        "AUTUMN",
        "subscription_days",
        14,
        creator["id"],
    )
    detail = (await client.get(f"{WEB}/{code['id']}")).json()
    assert (detail["total_uses"], detail["today_uses"], detail["recent_uses"]) == (0, 0, [])
    assert {k: v for k, v in detail.items() if k in code} == code

    listed = (await client.get(WEB, params={"is_active": True})).json()
    assert (listed["total"], [i["id"] for i in listed["items"]]) == (1, [code["id"]])

    changed = await client.patch(f"{WEB}/{code['id']}", json={"is_active": False, "max_uses": 0})
    assert changed.status_code == 200
    assert (changed.json()["is_active"], changed.json()["max_uses"], changed.json()["is_valid"]) == (
        False,
        999_999,
        False,
    )
    assert (await client.get(WEB, params={"is_active": True})).json()["total"] == 0

    assert (await client.delete(f"{WEB}/{code['id']}")).status_code == 204
    assert await rows(PromoCode) == []
    assert (await client.get(f"{WEB}/{code['id']}")).json() == {"detail": "Promo code not found"}


@pytest.mark.parametrize("created_by", [0, -7, None])
async def test_a_creator_of_zero_or_less_is_nobody(client, created_by):
    body = {"code": "C", "type": "balance", "balance_bonus_kopeks": 1, "created_by": created_by}
    response = await client.post(WEB, json=body)
    assert response.status_code == 201
    assert response.json()["created_by"] is None


async def test_an_unknown_creator_is_400(client, rows):
    body = {"code": "C", "type": "balance", "balance_bonus_kopeks": 1, "created_by": 424242}
    response = await client.post(WEB, json=body)
    assert response.status_code == 400
    assert response.json() == {"detail": "created_by names no user"}
    assert await rows(PromoCode) == []


async def test_an_empty_code_is_the_references_400_here(client):
    for code in ("", "   "):
        response = await client.post(WEB, json={"code": code, "type": "balance", "balance_bonus_kopeks": 1})
        assert response.status_code == 400
        assert response.json() == {"detail": "Code must not be empty"}
    patched = await client.patch(f"{WEB}/1", json={"code": ""})
    assert patched.status_code == 404  # no code 1: the id is checked first


async def test_the_web_api_sees_activations(client, make_user, cabinet, rows):
    code = (
        await client.post(WEB, json={"code": "SEEN", "type": "balance", "balance_bonus_kopeks": 50})
    ).json()
    user = await make_user(username="ann")
    async with cabinet(user["id"]) as http:
        assert (await http.post(ACTIVATE, json={"code": "seen"})).status_code == 200
    detail = (await client.get(f"{WEB}/{code['id']}")).json()
    assert (detail["total_uses"], detail["today_uses"], detail["current_uses"], detail["uses_left"]) == (
        1,
        1,
        1,
        0,
    )
    assert [(u["user_id"], u["user_username"]) for u in detail["recent_uses"]] == [(user["id"], "ann")]
    assert len(await rows(PromoCodeUse)) == 1


async def test_max_uses_zero_on_create_is_unlimited_here_too(client):
    body = {"code": "FREE", "type": "balance", "balance_bonus_kopeks": 1, "max_uses": 0}
    record = (await client.post(WEB, json=body)).json()
    assert (record["max_uses"], record["uses_left"], record["is_valid"]) == (999_999, 999_999, True)
