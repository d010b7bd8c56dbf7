"""Status, block and unblock, restrictions, promo group and referral commission."""

from __future__ import annotations

import pytest
from subsvc_promo_groups.models import PromoGroup
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.testing import ADMIN_MESSENGER_ID

BASE = "/cabinet/admin/users"


async def _status_events(outbox):
    return [payload for event, payload in await outbox() if event == "user.status_changed"]


async def test_status_change_publishes_who_changed_what(admin, make_user, reload, outbox):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/status", json={"status": "blocked", "reason": "spam"})
    assert response.json() == {
        "success": True,
        "old_status": "active",
        "new_status": "blocked",
        "message": "Status changed from active to blocked",
    }
    assert (await reload(User, user.id)).status == "blocked"
    (event,) = await _status_events(outbox)
    assert event == {
        "user_id": user.id,
        "messenger_id": user.messenger_id,
        "old_status": "active",
        "new_status": "blocked",
        "reason": "spam",
        "changed_by": 1,
    }
    again = await admin.post(f"{BASE}/{user.id}/status", json={"status": "blocked"})
    assert again.json()["message"] == "Status unchanged"
    assert len(await _status_events(outbox)) == 1


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["body", "status"]),
        ({"status": "gone"}, ["body", "status"]),
        ({"status": "active", "reason": "x" * 501}, ["body", "reason"]),
    ],
)
async def test_status_bounds_are_422(admin, make_user, body, loc):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/status", json=body)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [loc]


async def test_block_and_unblock(admin, make_user, reload, outbox):
    user = await make_user()
    blocked = await admin.post(f"{BASE}/{user.id}/block", params={"reason": "fraud"})
    assert blocked.json() == {
        "success": True,
        "old_status": "active",
        "new_status": "blocked",
        "message": "User blocked",
    }
    assert (await admin.post(f"{BASE}/{user.id}/block")).json()["message"] == "User is already blocked"
    unblocked = await admin.post(f"{BASE}/{user.id}/unblock")
    assert unblocked.json() == {
        "success": True,
        "old_status": "blocked",
        "new_status": "active",
        "message": "User unblocked",
    }
    assert (await admin.post(f"{BASE}/{user.id}/unblock")).json()["message"] == "User is not blocked"
    assert (await reload(User, user.id)).status == "active"
    assert [(e["new_status"], e["reason"]) for e in await _status_events(outbox)] == [
        ("blocked", "fraud"),
        ("active", None),
    ]
    assert (await admin.post(f"{BASE}/{user.id}/block", params={"reason": "x" * 501})).status_code == 422


async def test_a_deleted_user_is_neither_blocked_nor_unblocked(admin, make_user, reload):
    user = await make_user(status="deleted")
    for action in ("block", "unblock"):
        response = await admin.post(f"{BASE}/{user.id}/{action}")
        assert response.status_code == 400
    assert (await reload(User, user.id)).status == "deleted"


async def test_restrictions_change_only_what_is_given(admin, make_user):
    user = await make_user()
    first = await admin.post(
        f"{BASE}/{user.id}/restrictions", json={"restriction_topup": True, "restriction_reason": "chargeback"}
    )
    assert first.json() == {
        "success": True,
        "restriction_topup": True,
        "restriction_subscription": False,
        "restriction_reason": "chargeback",
        "message": "Restrictions updated",
    }
    second = (
        await admin.post(f"{BASE}/{user.id}/restrictions", json={"restriction_subscription": True})
    ).json()
    assert (
        second["restriction_topup"],
        second["restriction_subscription"],
        second["restriction_reason"],
    ) == (
        True,
        True,
        "chargeback",
    )
    cleared = (
        await admin.post(
            f"{BASE}/{user.id}/restrictions",
            json={"restriction_topup": False, "restriction_subscription": False, "restriction_reason": ""},
        )
    ).json()
    assert (
        cleared["restriction_topup"],
        cleared["restriction_subscription"],
        cleared["restriction_reason"],
    ) == (
        False,
        False,
        None,
    )
    bad = await admin.post(f"{BASE}/{user.id}/restrictions", json={"restriction_reason": "x" * 501})
    assert bad.status_code == 422


async def _group(db: Database, name: str) -> PromoGroup:
    async with db.session() as session:
        group = PromoGroup(name=name)
        session.add(group)
        await session.commit()
        await session.refresh(group)
    return group


async def test_promo_group_moves_and_null_means_the_default(admin, make_user, db, reload):
    user = await make_user()
    default_id = user.promo_group_id
    vip = await _group(db, "VIP")
    moved = await admin.post(f"{BASE}/{user.id}/promo-group", json={"promo_group_id": vip.id})
    assert moved.json() == {
        "success": True,
        "old_promo_group_id": default_id,
        "new_promo_group_id": vip.id,
        "promo_group_name": "VIP",
        "message": "Promo group updated",
    }
    assert (await reload(User, user.id)).promo_group_id == vip.id
    back = (await admin.post(f"{BASE}/{user.id}/promo-group", json={"promo_group_id": None})).json()
    assert (back["old_promo_group_id"], back["new_promo_group_id"]) == (vip.id, default_id)


@pytest.mark.parametrize("group_id", [424242, 0])
async def test_an_unknown_promo_group_is_404_and_changes_nothing(admin, make_user, reload, group_id):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/promo-group", json={"promo_group_id": group_id})
    assert (response.status_code, response.json()) == (404, {"detail": "Promo group not found"})
    assert (await reload(User, user.id)).promo_group_id == user.promo_group_id
    assert (
        await admin.post(f"{BASE}/{user.id}/promo-group", json={"promo_group_id": "x"})
    ).status_code == 422


async def test_a_promo_group_id_beyond_the_column_is_422_and_changes_nothing(admin, make_user, reload):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/promo-group", json={"promo_group_id": 2**40})
    assert response.status_code == 422
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [
        (["body", "promo_group_id"], "less_than_equal")
    ]
    assert (await reload(User, user.id)).promo_group_id == user.promo_group_id


async def test_referral_commission(admin, make_user):
    await make_user()  # id 1: the administrator's own account
    user = await make_user()
    first = await admin.post(f"{BASE}/{user.id}/referral-commission", json={"commission_percent": 25})
    assert first.json() == {
        "success": True,
        "old_commission_percent": None,
        "new_commission_percent": 25,
        "message": "Referral commission updated",
    }
    back = (await admin.post(f"{BASE}/{user.id}/referral-commission", json={})).json()
    assert (back["old_commission_percent"], back["new_commission_percent"]) == (25, None)
    for value in (-1, 101):
        bad = await admin.post(f"{BASE}/{user.id}/referral-commission", json={"commission_percent": value})
        assert bad.status_code == 422


async def test_an_admin_cannot_set_their_own_commission(admin, make_user, db):
    async with db.session() as session:
        assert await session.get(User, 1) is None
    me = await make_user(messenger_id=ADMIN_MESSENGER_ID)
    assert me.id == 1  # the admin token's subject
    response = await admin.post(f"{BASE}/{me.id}/referral-commission", json={"commission_percent": 50})
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Admin cannot modify their own referral commission"},
    )
