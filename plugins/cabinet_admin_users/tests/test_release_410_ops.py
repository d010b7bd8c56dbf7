"""Release 4.1.0 operations on one user: referrer and referrals, the activity timeline, one
subscription's deletion and SBP auto-renewal, the by-panel lookup, the request history."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow

BASE = "/cabinet/admin/users"


# --- referrer and referrals ----------------------------------------------------------------------


async def test_assign_replace_and_remove_the_referrer(admin, make_user, reload):
    user, first, second = await make_user(), await make_user(), await make_user()
    assigned = await admin.post(f"{BASE}/{user.id}/assign-referrer", json={"referrer_id": first.id})
    assert assigned.json() == {
        "success": True,
        "old_referrer_id": None,
        "new_referrer_id": first.id,
        "message": f"Referrer set to user {first.id}",
    }
    replaced = (await admin.post(f"{BASE}/{user.id}/assign-referrer", json={"referrer_id": second.id})).json()
    assert (replaced["old_referrer_id"], replaced["new_referrer_id"]) == (first.id, second.id)
    assert (await reload(User, user.id)).referred_by_id == second.id
    detail = (await admin.get(f"{BASE}/{user.id}")).json()
    assert detail["referral"]["referred_by_id"] == second.id

    removed = (await admin.delete(f"{BASE}/{user.id}/referrer")).json()
    assert removed == {"success": True, "old_referrer_id": second.id, "message": "Referrer removed"}
    assert (await reload(User, user.id)).referred_by_id is None
    again = (await admin.delete(f"{BASE}/{user.id}/referrer")).json()
    assert again == {"success": True, "old_referrer_id": None, "message": "User has no referrer"}


async def test_a_referrer_cannot_be_the_user_nor_below_them(admin, make_user, reload):
    top, middle, bottom = await make_user(), await make_user(), await make_user()
    await admin.post(f"{BASE}/{middle.id}/assign-referrer", json={"referrer_id": top.id})
    await admin.post(f"{BASE}/{bottom.id}/assign-referrer", json={"referrer_id": middle.id})
    own = await admin.post(f"{BASE}/{top.id}/assign-referrer", json={"referrer_id": top.id})
    assert (own.status_code, own.json()) == (400, {"detail": "A user cannot be their own referrer"})
    cycle = await admin.post(f"{BASE}/{top.id}/assign-referrer", json={"referrer_id": bottom.id})
    assert cycle.status_code == 400 and "referred by this user" in cycle.json()["detail"]
    missing = await admin.post(f"{BASE}/{top.id}/assign-referrer", json={"referrer_id": 999_999})
    assert (missing.status_code, missing.json()) == (404, {"detail": "Referrer not found"})
    assert (await admin.post(f"{BASE}/{top.id}/assign-referrer", json={"referrer_id": 0})).status_code == 422
    assert (await reload(User, top.id)).referred_by_id is None


async def test_remove_one_referral(admin, make_user, reload):
    referrer, referral, other = await make_user(), await make_user(), await make_user()
    await admin.post(f"{BASE}/{referral.id}/assign-referrer", json={"referrer_id": referrer.id})
    wrong = await admin.delete(f"{BASE}/{referrer.id}/referrals/{other.id}")
    assert (wrong.status_code, wrong.json()) == (
        404,
        {"detail": "This user is not a referral of the given user"},
    )
    removed = await admin.delete(f"{BASE}/{referrer.id}/referrals/{referral.id}")
    assert removed.json() == {
        "success": True,
        "removed_user_id": referral.id,
        "message": f"User {referral.id} is no longer a referral",
    }
    assert (await reload(User, referral.id)).referred_by_id is None
    assert (await admin.get(f"{BASE}/{referrer.id}/referrals")).json()["total"] == 0
    unknown = await admin.delete(f"{BASE}/{referrer.id}/referrals/999999")
    assert (unknown.status_code, unknown.json()) == (404, {"detail": "User not found"})


# --- activity ------------------------------------------------------------------------------------


async def test_activity_merges_the_sources_newest_first(
    admin, make_user, make_subscription, make_transaction
):
    now = utcnow()
    user = await make_user(cabinet_last_login=now - timedelta(minutes=1))
    await make_transaction(user, "deposit", 1000, created_at=now - timedelta(hours=3), description="Top-up")
    await make_subscription(user, created_at=now - timedelta(hours=2))
    await make_transaction(user, "subscription_payment", 700, created_at=now - timedelta(hours=1))

    body = (await admin.get(f"{BASE}/{user.id}/activity")).json()
    assert (body["total"], body["offset"], body["limit"]) == (4, 0, 50)
    kinds = [(i["type"], i["subtype"], i["amount_kopeks"]) for i in body["items"]]
    assert kinds == [
        ("cabinet_login", None, None),
        ("transaction", "subscription_payment", -700),
        ("event", "subscription_created", None),
        ("transaction", "deposit", 1000),
    ]
    assert body["items"][3]["title"] == "Top-up"

    page = (await admin.get(f"{BASE}/{user.id}/activity", params={"offset": 1, "limit": 2})).json()
    assert [i["type"] for i in page["items"]] == ["transaction", "event"] and page["total"] == 4
    only = (await admin.get(f"{BASE}/{user.id}/activity", params={"types": "transaction, nothing"})).json()
    assert [i["subtype"] for i in only["items"]] == ["subscription_payment", "deposit"] and only["total"] == 2
    assert (await admin.get(f"{BASE}/{user.id}/activity", params={"limit": 201})).status_code == 422


# --- one subscription ----------------------------------------------------------------------------


async def test_delete_one_subscription(admin, make_user, make_subscription, outbox, db):
    user, stranger = await make_user(), await make_user()
    trial = await make_subscription(user, days=-1, is_trial=True, status="expired")
    paid = await make_subscription(user, days=20)
    theirs = await make_subscription(stranger)

    not_theirs = await admin.delete(f"{BASE}/{user.id}/subscriptions/{theirs.id}")
    assert (not_theirs.status_code, not_theirs.json()) == (404, {"detail": "Subscription not found"})
    guarded = await admin.delete(f"{BASE}/{user.id}/subscriptions/{paid.id}")
    assert (guarded.status_code, guarded.json()) == (
        400,
        {"detail": "Active paid subscription: pass force=true to delete it"},
    )
    removed = await admin.delete(f"{BASE}/{user.id}/subscriptions/{trial.id}")
    assert removed.json() == {
        "success": True,
        "message": f"Subscription {trial.id} deleted",
        "subscription_id": trial.id,
    }
    forced = await admin.delete(f"{BASE}/{user.id}/subscriptions/{paid.id}", params={"force": True})
    assert forced.status_code == 200
    async with db.session() as session:
        left = (await session.exec(select(Subscription.id))).all()
    assert left == [theirs.id]
    changes = [p for event, p in await outbox() if event == "subscription.changed"]
    assert [(c["subscription_id"], c["status"]) for c in changes] == [
        (trial.id, "disabled"),
        (paid.id, "disabled"),
    ]


async def test_cancel_sbp_recurring_is_a_no_op_here(admin, make_user, make_subscription):
    user, stranger = await make_user(), await make_user()
    mine, theirs = await make_subscription(user), await make_subscription(stranger)
    response = await admin.post(f"{BASE}/{user.id}/subscriptions/{mine.id}/cancel-sbp-recurring")
    assert response.json() == {
        "success": True,
        "message": "No active SBP auto-renewal for this subscription",
        "cancelled": False,
    }
    refused = await admin.post(f"{BASE}/{user.id}/subscriptions/{theirs.id}/cancel-sbp-recurring")
    assert (refused.status_code, refused.json()) == (404, {"detail": "Subscription not found"})


async def test_by_panel_finds_the_owning_subscription(admin, make_user, make_subscription):
    user = await make_user()
    await make_subscription(user, short_id="aaaa1111")
    wanted = await make_subscription(user, short_id="bbbb2222")
    found = await admin.get(f"{BASE}/by-panel/bbbb2222")
    assert found.json() == {"user_id": user.id, "subscription_id": wanted.id, "matched_panel_id": None}
    for identifier in ("bbbb", "12345", "00000000-0000-0000-0000-000000000000"):
        missing = await admin.get(f"{BASE}/by-panel/{identifier}")
        assert (missing.status_code, missing.json()) == (
            404,
            {"detail": "No subscription has this panel identifier"},
        )


async def test_request_history_without_a_panel_is_503(admin, make_user, make_subscription):
    user, stranger = await make_user(), await make_user()
    theirs = await make_subscription(stranger)
    response = await admin.get(f"{BASE}/{user.id}/subscription-request-history")
    assert (response.status_code, response.json()) == (503, {"detail": "VPN panel is not configured"})
    other = await admin.get(
        f"{BASE}/{user.id}/subscription-request-history", params={"subscription_id": theirs.id}
    )
    assert (other.status_code, other.json()) == (404, {"detail": "Subscription not found"})
