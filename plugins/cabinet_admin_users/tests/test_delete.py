"""Deletion (soft, hard, full), disable, and the trial and subscription resets (no panel)."""

from __future__ import annotations

import pytest
from subsvc_billing.models import Transaction
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_subscriptions.models import Subscription, TrafficPurchase
from subsvc_users.models import User

from subsvc.db import utcnow

BASE = "/cabinet/admin/users"
NO_PANEL = "VPN panel is not configured"


async def test_soft_delete_is_the_default(admin, make_user, reload, outbox):
    user = await make_user()
    response = await admin.delete(f"{BASE}/{user.id}")
    assert response.json() == {"success": True, "message": "User soft deleted successfully"}
    assert (await reload(User, user.id)).status == "deleted"
    assert [e for e, p in await outbox() if e == "user.status_changed" and p["new_status"] == "deleted"]


async def test_hard_delete_removes_the_user_and_what_hangs_on_it(
    admin, make_user, make_subscription, make_transaction, reload, outbox
):
    user = await make_user()
    referral = await make_user(referred_by_id=user.id)
    subscription = await make_subscription(user)
    transaction = await make_transaction(user, "deposit", 100)
    await admin.post(f"{BASE}/{user.id}/restrictions", json={"restriction_topup": True})
    listed = (await admin.get(BASE)).json()["total"]

    response = await admin.request(
        "DELETE", f"{BASE}/{user.id}", json={"soft_delete": False, "reason": "gdpr"}
    )
    assert response.json() == {"success": True, "message": "User permanently deleted successfully"}
    assert await reload(User, user.id) is None
    assert await reload(Subscription, subscription.id) is None
    assert await reload(Transaction, transaction.id) is None
    assert await reload(UserAdminSettings, user.id) is None
    assert (await reload(User, referral.id)).referred_by_id is None
    assert (await admin.get(BASE)).json()["total"] == listed - 1
    (deleted,) = [p for e, p in await outbox() if e == "user.deleted"]
    assert (deleted["user_id"], deleted["short_ids"], deleted["delete_from_panel"], deleted["reason"]) == (
        user.id,
        [subscription.short_id],
        False,
        "gdpr",
    )
    assert (await admin.get(f"{BASE}/{user.id}")).status_code == 404


async def test_full_delete_without_a_panel_deletes_here_and_says_so(admin, make_user, reload):
    user = await make_user()
    response = await admin.delete(f"{BASE}/{user.id}/full")
    assert response.json() == {
        "success": True,
        "message": "User deleted from bot",
        "deleted_from_bot": True,
        "deleted_from_panel": False,
        "panel_error": NO_PANEL,
    }
    assert await reload(User, user.id) is None
    other = await make_user()
    quiet = await admin.request("DELETE", f"{BASE}/{other.id}/full", json={"delete_from_panel": False})
    assert quiet.json()["panel_error"] is None


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("DELETE", "", {"soft_delete": True, "reason": "x" * 501}),
        ("DELETE", "", {"soft_delete": "perhaps"}),
        ("DELETE", "/full", {"reason": "x" * 501}),
        ("POST", "/disable", {"reason": "x" * 501}),
        ("POST", "/reset-trial", {"reason": "x" * 501}),
        ("POST", "/reset-subscription", {"deactivate_in_panel": "no way"}),
    ],
)
async def test_bodies_are_validated(admin, make_user, reload, method, path, body):
    user = await make_user()
    response = await admin.request(method, f"{BASE}/{user.id}{path}", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "body"
    assert (await reload(User, user.id)).status == "active"


async def test_disable_disables_subscriptions_and_blocks(admin, make_user, make_subscription, reload, outbox):
    user = await make_user()
    live = await make_subscription(user)
    off = await make_subscription(user, status="disabled")
    response = await admin.post(f"{BASE}/{user.id}/disable", json={"reason": "abuse"})
    assert response.json() == {
        "success": True,
        "message": "User disabled successfully",
        "subscription_deactivated": True,
        "panel_deactivated": False,
        "user_blocked": True,
        "panel_error": NO_PANEL,
    }
    assert (await reload(User, user.id)).status == "blocked"
    assert (await reload(Subscription, live.id)).status == "disabled"
    changed = [(p["subscription_id"], p["change"]) for e, p in await outbox() if e == "subscription.changed"]
    assert changed == [(live.id, "disabled")]
    assert off.status == "disabled"
    nothing_left = (await admin.post(f"{BASE}/{user.id}/disable")).json()
    assert nothing_left["subscription_deactivated"] is False


async def test_reset_trial_deletes_trials_only(admin, make_user, make_subscription, db, reload):
    user = await make_user()
    trial = await make_subscription(user, is_trial=True)
    paid = await make_subscription(user)
    async with db.session() as session:
        purchase = TrafficPurchase(subscription_id=trial.id, traffic_gb=1, expires_at=utcnow())
        session.add(purchase)
        await session.commit()
        await session.refresh(purchase)
    response = await admin.post(f"{BASE}/{user.id}/reset-trial", json={"reason": "support"})
    assert response.json() == {
        "success": True,
        "message": "Trial reset successfully. User can now activate a new trial.",
        "subscription_deleted": True,
        "has_used_trial_reset": True,
    }
    assert await reload(Subscription, trial.id) is None
    assert await reload(TrafficPurchase, purchase.id) is None
    assert (await reload(Subscription, paid.id)).status == "active"
    again = (await admin.post(f"{BASE}/{user.id}/reset-trial")).json()
    assert again["subscription_deleted"] is False


async def test_reset_subscription_deletes_every_subscription(
    admin, make_user, make_subscription, reload, outbox
):
    user = await make_user()
    first = await make_subscription(user)
    second = await make_subscription(user, is_trial=True)
    response = await admin.post(f"{BASE}/{user.id}/reset-subscription")
    assert response.json() == {
        "success": True,
        "message": "Subscription reset successfully",
        "subscription_deleted": True,
        "panel_deactivated": False,
        "panel_error": NO_PANEL,
    }
    assert await reload(Subscription, first.id) is None and await reload(Subscription, second.id) is None
    changed = sorted(p["subscription_id"] for e, p in await outbox() if e == "subscription.changed")
    assert changed == sorted([first.id, second.id])
    assert (await admin.get(f"{BASE}/{user.id}")).json()["subscription"] is None
    empty = (await admin.post(f"{BASE}/{user.id}/reset-subscription")).json()
    assert (empty["message"], empty["subscription_deleted"]) == ("User has no subscription to reset", False)


async def test_reset_subscription_without_the_panel_step_publishes_nothing(
    admin, make_user, make_subscription, reload, outbox
):
    user = await make_user()
    subscription = await make_subscription(user)
    body = (
        await admin.post(f"{BASE}/{user.id}/reset-subscription", json={"deactivate_in_panel": False})
    ).json()
    assert (body["subscription_deleted"], body["panel_error"]) == (True, None)
    assert await reload(Subscription, subscription.id) is None
    assert [e for e, _ in await outbox() if e == "subscription.changed"] == []
