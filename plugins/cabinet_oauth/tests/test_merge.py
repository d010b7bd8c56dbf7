"""Account merge: the preview, the merge itself (what moves, in one transaction), the token's
single use, and a merge without the billing and subscriptions plugins."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from subsvc_billing.models import Transaction
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_oauth.models import MergeToken, OAuthIdentity
from subsvc_cabinet_oauth.testing import account
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import utcnow
from subsvc.events import OutboxEvent


@pytest.fixture
def offer_merge(oauth_login, oauth_link, insert_user, db):
    """``await offer_merge(...)``: a secondary user who logs in with Yandex (balance, a
    subscription, a transaction, an invitee), a primary who links that Yandex account; the
    merge token and both users' ids."""

    async def make(*, secondary_balance=5_000, primary_balance=1_000, subscriptions=(True, True)):
        login = await oauth_login("yandex", account("yandex", "y-1", email="second@example.com"))
        secondary_id = login.json()["user"]["id"]
        primary = await insert_user(balance_kopeks=primary_balance, messenger_id=None, first_name="Prime")
        invitee = await insert_user(referred_by_id=secondary_id)
        now = utcnow()
        async with db.session() as session:
            await session.exec(
                update(User)
                .where(User.id == secondary_id)
                .values(balance_kopeks=secondary_balance, has_made_first_topup=True)
            )
            session.add(Transaction(user_id=secondary_id, type="deposit", amount_kopeks=secondary_balance))
            for owner, wanted, days in (
                (primary.id, subscriptions[0], 10),
                (secondary_id, subscriptions[1], 40),
            ):
                if wanted:
                    session.add(
                        Subscription(
                            user_id=owner,
                            end_date=now + timedelta(days=days),
                            short_id=f"s{owner:07d}",
                            traffic_limit_gb=days,
                        )
                    )
            await session.commit()
        r = await oauth_link(primary.id, "yandex", account("yandex", "y-1"))
        return r.json()["merge_token"], primary.id, secondary_id, invitee.id

    return make


async def test_preview_shows_both_accounts(offer_merge, anon_client):
    token, primary, secondary, _ = await offer_merge()
    r = await anon_client.get(f"/cabinet/auth/merge/{token}")
    assert r.status_code == 200, r.text
    body = r.json()
    assert 0 < body["expires_in_seconds"] <= 1800
    assert body["primary"]["id"] == primary and body["primary"]["first_name"] == "Prime"
    assert body["primary"]["balance_kopeks"] == 1_000 and body["primary"]["auth_methods"] == []
    second = body["secondary"]
    assert second["id"] == secondary and second["auth_methods"] == ["yandex"]
    assert second["email"] == "second@example.com" and second["balance_kopeks"] == 5_000
    assert second["subscription"]["status"] == "active" and second["subscription"]["traffic_limit_gb"] == 40
    r = await anon_client.get(f"/cabinet/auth/merge/{token}")
    assert r.status_code == 200  # a preview does not use the token


async def test_unknown_or_malformed_merge_tokens(anon_client):
    r = await anon_client.get("/cabinet/auth/merge/" + "x" * 43)
    assert r.status_code == 404 and r.json() == {"detail": "Merge token is invalid or expired"}
    r = await anon_client.get("/cabinet/auth/merge/short")
    assert r.status_code == 422
    r = await anon_client.post("/cabinet/auth/merge/" + "x" * 43, json={"keep_subscription_from": 1})
    assert r.status_code == 404 and r.json() == {
        "detail": "Merge token is invalid, expired, or already consumed"
    }


async def test_merge_moves_everything_to_the_primary(offer_merge, anon_client, rows):
    token, primary, secondary, invitee = await offer_merge()
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": secondary})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["success"] is True and body["access_token"] and body["refresh_token"]
    assert body["user"]["id"] == primary and body["user"]["balance_kopeks"] == 6_000
    assert body["user"]["email"] == "second@example.com"

    (merged,) = await rows(User, id=primary)
    (gone,) = await rows(User, id=secondary)
    assert merged.balance_kopeks == 6_000 and merged.has_made_first_topup is True
    assert gone.status == "deleted" and gone.balance_kopeks == 0
    assert gone.email is None and gone.referral_code is None
    (identity,) = await rows(OAuthIdentity)
    assert (identity.user_id, identity.provider) == (primary, "yandex")
    transactions = await rows(Transaction)
    assert {t.user_id for t in transactions} == {primary}
    assert [(t.type, t.amount_kopeks, t.payment_method, t.external_id) for t in transactions[1:]] == [
        ("withdrawal", 5_000, "balance", f"account-merge:{secondary}:out"),
        ("deposit", 5_000, "balance", f"account-merge:{secondary}:in"),
    ]
    assert [t.balance_after_kopeks for t in transactions[1:]] == [0, 6_000]
    (moved_invitee,) = await rows(User, id=invitee)
    assert moved_invitee.referred_by_id == primary
    subscriptions = {s.traffic_limit_gb: s for s in await rows(Subscription)}
    assert {s.user_id for s in subscriptions.values()} == {primary}
    assert subscriptions[40].status == "active"  # the secondary's, kept
    assert subscriptions[10].status == "disabled"  # the primary's, dropped
    sessions = await rows(CabinetRefreshToken)
    assert all(s.revoked_at is not None for s in sessions if s.device_info != "merge")
    (fresh,) = [s for s in sessions if s.device_info == "merge"]
    assert fresh.user_id == primary and fresh.revoked_at is None
    events = [row.payload for row in await rows(OutboxEvent) if row.event_type == "account.merged"]
    assert events == [
        {
            "primary_user_id": primary,
            "secondary_user_id": secondary,
            "provider": "yandex",
            "moved_balance_kopeks": 5_000,
            "kept_subscription_from": secondary,
            "moved_subscription_ids": events[0]["moved_subscription_ids"],
            "disabled_subscription_ids": [subscriptions[10].id],
        }
    ]
    assert events[0]["moved_subscription_ids"] == [subscriptions[40].id]


async def test_after_the_merge_the_provider_logs_in_as_the_primary(offer_merge, anon_client, oauth_login):
    token, primary, _, _ = await offer_merge()
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert r.status_code == 200
    r = await oauth_login("yandex", account("yandex", "y-1"))
    assert r.status_code == 200 and r.json()["user"]["id"] == primary


async def test_keeping_the_primary_subscription_disables_the_other(offer_merge, anon_client, rows):
    token, primary, _, _ = await offer_merge()
    await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    subscriptions = {s.traffic_limit_gb: s for s in await rows(Subscription)}
    assert subscriptions[10].status == "active" and subscriptions[40].status == "disabled"


async def test_a_lone_subscription_moves_whatever_is_chosen(offer_merge, anon_client, rows):
    token, primary, _, _ = await offer_merge(subscriptions=(False, True))
    await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    (subscription,) = await rows(Subscription)
    assert subscription.user_id == primary and subscription.status == "active"


async def test_a_merge_token_is_used_once(offer_merge, anon_client):
    token, primary, _, _ = await offer_merge()
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert r.status_code == 200
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert (
        r.status_code == 404 and r.json()["detail"] == "Merge token is invalid, expired, or already consumed"
    )
    r = await anon_client.get(f"/cabinet/auth/merge/{token}")
    assert r.status_code == 404


async def test_a_refused_merge_changes_nothing_and_keeps_the_token(offer_merge, anon_client, rows):
    token, primary, secondary, _ = await offer_merge()
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": 999_999})
    assert r.status_code == 400
    assert r.json() == {"detail": "keep_subscription_from must be one of the two user IDs being merged"}
    assert len(await rows(MergeToken)) == 1
    (second,) = await rows(User, id=secondary)
    assert second.status == "active" and second.balance_kopeks == 5_000
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert r.status_code == 200


async def test_an_expired_merge_token_is_refused(offer_merge, anon_client, db, rows):
    token, primary, _, _ = await offer_merge()
    async with db.session() as session:
        await session.exec(update(MergeToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        await session.commit()
    r = await anon_client.get(f"/cabinet/auth/merge/{token}")
    assert r.status_code == 404
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert r.status_code == 404
    (user,) = await rows(User, id=primary)
    assert user.balance_kopeks == 1_000


async def test_merging_into_a_deleted_account_is_refused(offer_merge, anon_client, db):
    token, primary, secondary, _ = await offer_merge()
    async with db.session() as session:
        await session.exec(update(User).where(User.id == secondary).values(status="deleted"))
        await session.commit()
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert r.status_code == 400 and "cannot be completed" in r.json()["detail"]


async def test_messenger_merge_moves_the_messenger_id(oauth_login, insert_user, anon_client, sign, rows):
    owner = await insert_user(messenger_id=777000, balance_kopeks=300)
    r = await oauth_login("google", account("google", "g-1"))
    primary = r.json()["user"]["id"]
    headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
    r = await anon_client.post(
        "/cabinet/auth/account/link/messenger", json={"init_data": sign.init_data(777000)}, headers=headers
    )
    token = r.json()["merge_token"]
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary})
    assert r.status_code == 200, r.text
    assert r.json()["user"]["messenger_id"] == 777000 and r.json()["user"]["balance_kopeks"] == 300
    (gone,) = await rows(User, id=owner.id)
    assert gone.messenger_id is None and gone.status == "deleted"


MINIMAL = [
    "subsvc_promo_groups.plugin",
    "subsvc_users.plugin",
    "subsvc_cabinet_auth.plugin",
    "subsvc_cabinet_oauth.plugin",
]


@pytest.mark.parametrize("subsvc_plugins", [MINIMAL])
async def test_merge_without_billing_moves_the_balance_on_the_users_row(
    oauth_login, oauth_link, insert_user, anon_client, db, rows, subsvc_plugins
):
    login = await oauth_login("discord", account("discord", "d-1"))
    secondary = login.json()["user"]["id"]
    async with db.session() as session:
        await session.exec(update(User).where(User.id == secondary).values(balance_kopeks=250))
        await session.commit()
    primary = await insert_user(balance_kopeks=50)
    token = (await oauth_link(primary.id, "discord", account("discord", "d-1"))).json()["merge_token"]
    r = await anon_client.get(f"/cabinet/auth/merge/{token}")
    assert r.json()["secondary"]["subscription"] is None
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": primary.id})
    assert r.status_code == 200, r.text
    assert r.json()["user"]["balance_kopeks"] == 300
    (gone,) = await rows(User, id=secondary)
    assert gone.balance_kopeks == 0 and gone.status == "deleted"
