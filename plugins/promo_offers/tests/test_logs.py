"""The log, on the Web API and the Cabinet Admin API: entries with their user and offer, newest
first, filtered and paged."""

from __future__ import annotations

import pytest

WEB = "/promo-offers"
ADMIN = "/cabinet/admin/promo-offers"
CABINET = "/cabinet/promo"


async def _claimed_and_cleared(client, member, member_user) -> dict:
    body = {
        "user_id": member_user.id,
        "notification_type": "winback",
        "valid_hours": 1,
        "discount_percent": 9,
    }
    offer = (await client.post(WEB, json=body)).json()
    assert (await member.post(f"{CABINET}/claim", json={"offer_id": offer["id"]})).status_code == 200
    assert (await member.delete(f"{CABINET}/active-discount")).status_code == 200
    return offer


async def test_entries_carry_their_user_and_offer_newest_first(client, admin, member, member_user):
    offer = await _claimed_and_cleared(client, member, member_user)
    for http, base in ((client, WEB), (admin, ADMIN)):
        page = (await http.get(f"{base}/logs")).json()
        assert (page["total"], page["limit"], page["offset"]) == (2, 50, 0)
        disabled, claimed = page["items"]
        assert (disabled["action"], claimed["action"]) == ("disabled", "claimed")
        assert (claimed["user_id"], claimed["offer_id"], claimed["source"], claimed["percent"]) == (
            member_user.id,
            offer["id"],
            "winback",
            9,
        )
        assert claimed["effect_type"] == "percent_discount"
        assert claimed["details"]["context"] == "cabinet_claim"
        assert claimed["user"]["id"] == member_user.id and claimed["user"]["full_name"] == "Mia Lind"
        assert claimed["offer"]["id"] == offer["id"]
        assert claimed["offer"]["claimed_at"] is not None and claimed["offer"]["is_active"] is False


async def test_the_filters(client, admin, member, member_user, make_user):
    offer = await _claimed_and_cleared(client, member, member_user)

    async def actions(http, base, **params):
        return [item["action"] for item in (await http.get(f"{base}/logs", params=params)).json()["items"]]

    assert await actions(admin, ADMIN, action="claimed") == ["claimed"]
    assert await actions(admin, ADMIN, user_id=member_user.id) == ["disabled", "claimed"]
    assert await actions(admin, ADMIN, user_id=(await make_user()).id) == []
    assert await actions(client, WEB, offer_id=offer["id"]) == ["disabled", "claimed"]
    assert await actions(client, WEB, source="winback", action="disabled") == ["disabled"]
    assert await actions(client, WEB, offer_id=2**31 - 1) == []
    beyond = await client.get(f"{WEB}/logs", params={"offer_id": 99999999999})  # beyond INTEGER
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["query", "offer_id"], "less_than_equal")
    ]
    window = (await client.get(f"{WEB}/logs", params={"limit": 1, "offset": 1})).json()
    assert ([item["action"] for item in window["items"]], window["total"]) == (["claimed"], 2)


@pytest.mark.parametrize(
    "params",
    [{"limit": 0}, {"offset": -1}, {"action": ""}, {"user_id": 0}, {"user_id": 2**31}, {"offset": 10**30}],
)
async def test_bounds_are_422(client, admin, params):
    assert (await admin.get(f"{ADMIN}/logs", params=params)).status_code == 422
    assert (await client.get(f"{WEB}/logs", params=params)).status_code == 422
