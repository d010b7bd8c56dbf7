"""A guest buys from a landing page over HTTP, paying at the loopback fake YooKassa: no account
exists until the payment is paid (an unpaid one leaves none); then the subscription is
delivered once (the notification repeated, concurrent status polls change nothing), a new
account's password is shown once; a gift is claimed once, even by concurrent claims; the
purchase endpoint's per-IP limit answers 429."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from argon2 import PasswordHasher
from subsvc_billing.api import Transaction
from subsvc_landings.accounts import PAYMENT_ACCOUNT_NAME
from subsvc_landings.models import GuestPurchase
from subsvc_payments.api import Payment
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User


async def buy(anon_client: Any, slug: str, tariff_id: int, **fields: Any) -> Any:
    body = {
        "tariff_id": tariff_id,
        "period_days": 30,
        "contact_type": "email",
        "contact_value": "Guest@Example.com",
        "payment_method": "yookassa",
        **fields,
    }
    return await anon_client.post(f"/cabinet/landing/{slug}/purchase", json=body)


async def payment_of(rows: Any, token: str) -> Payment:
    [payment] = [p for p in await rows(Payment) if p.data.get("purchase_token") == token]
    assert (payment.data["purpose"], payment.idempotency_key) == ("guest_purchase", f"guest:{token}")
    return payment


async def settled(rows: Any, wait_for: Any, token: str) -> GuestPurchase:
    async def done() -> GuestPurchase | None:
        [purchase] = [p for p in await rows(GuestPurchase) if p.token == token]
        return purchase if purchase.status != "pending" else None

    found: GuestPurchase = await wait_for(done)
    return found


async def pay(fake_yookassa: Any, notify: Any, rows: Any, wait_for: Any, token: str) -> GuestPurchase:
    payment = await payment_of(rows, token)
    fake_yookassa.pay(payment.provider_payment_id)
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200
    return await settled(rows, wait_for, token)


async def accounts(rows: Any) -> list[str | None]:
    """Every user's e-mail, but the payment account's (named, no e-mail)."""
    return sorted((u.email or "") for u in await rows(User) if u.first_name != PAYMENT_ACCOUNT_NAME)


async def test_the_public_page_shows_localised_texts_and_discounted_prices(
    anon_client, make_tariff, make_landing
):
    tariff = await make_tariff(period_prices={"30": 20_000, "90": 50_000})
    page = await make_landing(
        [tariff.id], allowed_periods={str(tariff.id): [30]}, discount_percent=25,
        discount_ends_at="2099-01-01T00:00:00Z", discount_badge_text={"en": "-25%"},
    )  # fmt: skip
    shown = (await anon_client.get(f"/cabinet/landing/{page['slug']}", params={"lang": "en"})).json()
    assert shown["title"] == "Promo"
    [offered] = shown["tariffs"]
    [period] = offered["periods"]
    assert (period["days"], period["price_kopeks"], period["original_price_kopeks"]) == (30, 15_000, 20_000)
    assert shown["discount"]["percent"] == 25 and shown["discount"]["badge_text"] == "-25%"
    assert [m["method_id"] for m in shown["payment_methods"]] == ["yookassa"]
    missing = await anon_client.get("/cabinet/landing/nothing-here")
    assert (missing.status_code, missing.json()["detail"]) == (404, "Landing page not found")


async def test_a_guest_purchase_is_delivered_once_and_its_password_shown_once(
    admin, anon_client, make_tariff, make_landing, fake_yookassa, notify, rows, wait_for, reload
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    before = await accounts(rows)  # the administrator's
    created = await buy(anon_client, page["slug"], tariff.id)
    assert created.status_code == 200, created.text
    token = created.json()["purchase_token"]
    assert len(token) == 64 and created.json()["payment_url"].startswith("http")
    pending = (await anon_client.get(f"/cabinet/landing/purchase/{token}")).json()
    assert (pending["status"], pending["cabinet_password"]) == ("pending", None)
    assert await accounts(rows) == before  # no account before the payment is paid
    payment = await payment_of(rows, token)
    fake_yookassa.pay(payment.provider_payment_id)
    body = fake_yookassa.notification_body(payment.provider_payment_id)
    status = f"/cabinet/landing/purchase/{token}"
    racing = await asyncio.gather(notify(body), notify(body), *[anon_client.get(status) for _ in range(3)])
    assert [r.status_code for r in racing] == [200] * 5
    purchase = await settled(rows, wait_for, token)
    assert purchase.status == "delivered"
    again = await notify(body)
    assert again.status_code == 200
    [subscription] = await rows(Subscription)
    assert (subscription.user_id, subscription.tariff_id) == (purchase.user_id, tariff.id)
    assert await accounts(rows) == sorted([*before, "guest@example.com"])
    [payer] = [u for u in await rows(User) if u.first_name == PAYMENT_ACCOUNT_NAME]
    moves = sorted((t.type, t.user_id, t.amount_kopeks) for t in await rows(Transaction))
    assert moves == [("deposit", payer.id, 19_900), ("subscription_payment", payer.id, 19_900)]
    assert (await reload(User, payer.id)).balance_kopeks == 0
    shown = [*racing[2:], *await asyncio.gather(*[anon_client.get(status) for _ in range(3)])]
    passwords = [s.json()["cabinet_password"] for s in shown if s.json()["cabinet_password"]]
    assert len(passwords) == 1
    first = next(s.json() for s in shown if s.json()["cabinet_password"])
    assert (first["cabinet_email"], first["status"]) == ("guest@example.com", "delivered")
    second = (await anon_client.get(status)).json()
    assert (second["status"], second["cabinet_password"]) == ("delivered", None)
    activated = await anon_client.post(f"/cabinet/landing/activate/{token}")
    assert (activated.status_code, activated.json()["status"]) == (200, "delivered")
    account = await reload(User, purchase.user_id)  # the password logs in: its hash, the address verified
    assert PasswordHasher().verify(account.password_hash, first["cabinet_password"])
    assert (account.email, account.email_verified, account.balance_kopeks) == ("guest@example.com", True, 0)
    stats = (await admin.get(f"/cabinet/admin/landings/{page['id']}/stats")).json()
    assert (stats["total_created"], stats["total_purchases"], stats["total_revenue_kopeks"]) == (1, 1, 19_900)
    assert stats["tariff_stats"][0]["tariff_id"] == tariff.id and stats["daily_stats"][0]["purchases"] == 1
    listed = (
        await admin.get(f"/cabinet/admin/landings/{page['id']}/purchases", params={"status": "delivered"})
    ).json()
    assert listed["total"] == 1 and listed["items"][0]["token"] == token
    [item] = (await admin.get("/cabinet/admin/landings")).json()
    assert item["purchase_stats"]["delivered"] == 1


async def test_an_unpaid_purchase_leaves_no_account_behind(
    anon_client, make_tariff, make_landing, fake_yookassa, notify, rows, wait_for
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    token = (await buy(anon_client, page["slug"], tariff.id)).json()["purchase_token"]
    payment = await payment_of(rows, token)
    fake_yookassa.cancel(payment.provider_payment_id)
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200
    purchase = await settled(rows, wait_for, token)
    shown = (await anon_client.get(f"/cabinet/landing/purchase/{token}")).json()
    assert (purchase.status, shown["status"], shown["cabinet_password"]) == ("failed", "failed", None)
    assert (purchase.user_id, purchase.buyer_user_id) == (None, None)
    assert await accounts(rows) == [] and await rows(Subscription) == []
    assert [t.type for t in await rows(Transaction)] == []


async def test_the_password_is_not_shown_a_day_after_delivery(
    anon_client, make_tariff, make_landing, fake_yookassa, notify, rows, wait_for, db
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    token = (await buy(anon_client, page["slug"], tariff.id)).json()["purchase_token"]
    purchase = await pay(fake_yookassa, notify, rows, wait_for, token)
    assert purchase.status == "delivered" and purchase.cabinet_password
    async with db.session() as session:  # a day passes before the buyer looks
        row = await session.get(GuestPurchase, purchase.id)
        row.delivered_at = purchase.delivered_at - timedelta(hours=25)
        await session.commit()
    shown = (await anon_client.get(f"/cabinet/landing/purchase/{token}")).json()
    assert (shown["status"], shown["cabinet_email"], shown["cabinet_password"]) == ("delivered", None, None)
    [wiped] = [p for p in await rows(GuestPurchase) if p.token == token]
    assert wiped.cabinet_password is None


async def test_refusals_of_the_landing_rules(anon_client, make_tariff, make_landing):
    tariff, other = await make_tariff(), await make_tariff()
    page = await make_landing(
        [tariff.id, other.id], gift_enabled=False, allowed_periods={str(other.id): [90]}
    )
    no_gifts = await make_tariff(show_in_gift=False)
    gifts = await make_landing([no_gifts.id])
    refused = await buy(anon_client, gifts["slug"], no_gifts.id, is_gift=True)
    assert (refused.status_code, refused.json()["detail"]) == (
        400,
        "This tariff is not available for gift purchases",
    )
    cases = [
        ({"tariff_id": no_gifts.id}, "Tariff is not available on this landing page"),
        ({"period_days": 7}, "Period is not available for this tariff"),
        ({"tariff_id": other.id}, "Period is not available for this tariff on this landing page"),
        ({"payment_method": "cryptobot"}, "Payment method is not available on this landing page"),
        ({"is_gift": True}, "Gift purchases are not enabled for this landing page"),
    ]
    for fields, detail in cases:
        refused = await buy(anon_client, page["slug"], **{"tariff_id": tariff.id, **fields})
        assert (refused.status_code, refused.json()["detail"]) == (400, detail)


async def test_a_gift_is_claimed_once_under_concurrent_claims(
    app, make_tariff, make_landing, anon_client, fake_yookassa, notify, rows, wait_for
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    created = await buy(
        anon_client, page["slug"], tariff.id, is_gift=True, gift_recipient_type="email",
        gift_recipient_value="friend@example.com", gift_message="Enjoy",
    )  # fmt: skip
    token = created.json()["purchase_token"]
    paid = await pay(fake_yookassa, notify, rows, wait_for, token)
    assert paid.status == "paid"
    assert await accounts(rows) == []  # neither the buyer nor the recipient has one yet
    view = (await anon_client.get(f"/cabinet/landing/gift/{token}")).json()
    assert (view["is_claimable"], view["gift_message"], view["contact_value"]) == (True, "Enjoy", None)
    claims = await asyncio.gather(
        *[anon_client.post(f"/cabinet/landing/gift/{token}/claim", json={"email": "friend@example.com"})
          for _ in range(4)]
    )  # fmt: skip
    assert sorted(c.status_code for c in claims) == [200, 409, 409, 409]
    assert {c.json()["detail"] for c in claims if c.status_code == 409} == {
        "This gift has already been claimed"
    }
    [claimed] = [c.json() for c in claims if c.status_code == 200]
    assert (claimed["status"], claimed["period_days"]) == ("claimed", 30)
    [subscription] = await rows(Subscription)
    [delivered] = [p for p in await rows(GuestPurchase) if p.token == token]
    assert (delivered.status, subscription.user_id) == ("delivered", delivered.user_id)
    assert delivered.buyer_user_id is None and await accounts(rows) == ["friend@example.com"]
    view = (await anon_client.get(f"/cabinet/landing/gift/{token}")).json()  # the links went to the claimer
    assert (view["status"], view["is_claimable"], view["subscription_url"]) == ("delivered", False, None)


async def test_a_gift_recipient_is_checked_when_the_purchase_is_made(anon_client, make_tariff, make_landing):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    cases = [
        ("email", "not-an-address", "Invalid email format"),
        ("messenger", "@1x", "Invalid Messenger username format"),
    ]
    for kind, value, detail in cases:
        refused = await buy(
            anon_client,
            page["slug"],
            tariff.id,
            is_gift=True,
            gift_recipient_type=kind,
            gift_recipient_value=value,
        )
        assert (refused.status_code, refused.json()["detail"]) == (400, detail)


@pytest.mark.landings_env(LANDINGS_CABINET_URL="https://cabinet.example")
async def test_the_payer_returns_to_the_purchase_page(anon_client, make_tariff, make_landing, fake_yookassa):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    token = (await buy(anon_client, page["slug"], tariff.id)).json()["purchase_token"]
    [(_, _, _, body)] = fake_yookassa.requests
    assert body["confirmation"]["return_url"] == f"https://cabinet.example/buy/success/{token}"


@pytest.mark.landings_env(RATE_LIMITS="landing_purchase=2/minute")
async def test_the_purchase_endpoint_is_rate_limited_per_ip(anon_client, make_tariff, make_landing):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    answers = [await buy(anon_client, page["slug"], tariff.id, period_days=7) for _ in range(3)]
    assert [a.status_code for a in answers] == [400, 400, 429]
    assert answers[2].json()["detail"] == "Too many purchase attempts, please try again later"


async def test_a_provider_down_answers_502_and_leaves_the_purchase_failed(
    anon_client, make_tariff, make_landing, fake_yookassa, rows
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    await fake_yookassa.down()
    refused = await buy(anon_client, page["slug"], tariff.id)
    assert (refused.status_code, refused.json()["detail"]) == (
        502,
        "Payment provider is unavailable, please try again later",
    )
    [purchase] = await rows(GuestPurchase)
    assert purchase.status == "failed"
    not_yet = await anon_client.post(f"/cabinet/landing/activate/{purchase.token}")
    assert (not_yet.status_code, not_yet.json()["detail"]) == (400, "Purchase is not pending activation")


async def test_an_existing_account_gets_the_subscription_and_no_credentials(
    anon_client, make_tariff, make_landing, make_user, fake_yookassa, notify, rows, wait_for, reload
):
    user = await make_user(username="known_buyer")
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    created = await buy(
        anon_client, page["slug"], tariff.id, contact_type="messenger", contact_value="@Known_Buyer"
    )
    token = created.json()["purchase_token"]
    purchase = await pay(fake_yookassa, notify, rows, wait_for, token)
    assert (purchase.status, purchase.user_id, purchase.buyer_user_id) == ("delivered", user.id, user.id)
    assert (await reload(User, user.id)).balance_kopeks == 0  # the payment went through the payment account
    shown = (await anon_client.get(f"/cabinet/landing/purchase/{token}")).json()
    assert (shown["cabinet_email"], shown["cabinet_password"]) == (None, None)
    unknown = await buy(
        anon_client, page["slug"], tariff.id, contact_type="messenger", contact_value="@nobody_here"
    )
    assert unknown.status_code == 400


async def test_concurrent_first_purchases_open_their_payments_for_one_payment_account(
    anon_client, make_tariff, make_landing, rows
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    created = await asyncio.gather(
        *[buy(anon_client, page["slug"], tariff.id, contact_value=f"guest{n}@example.com") for n in range(3)]
    )
    assert [c.status_code for c in created] == [200] * 3
    [payer] = [u for u in await rows(User) if u.first_name == PAYMENT_ACCOUNT_NAME]
    assert {p.user_id for p in await rows(Payment)} == {payer.id}
    assert await accounts(rows) == []


@pytest.mark.landings_env(PAYMENTS_EXPIRE_INTERVAL_SECONDS="1")
async def test_an_expired_purchase_paid_late_is_still_delivered_once(
    anon_client, make_tariff, make_landing, fake_yookassa, notify, rows, wait_for, db
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    token = (await buy(anon_client, page["slug"], tariff.id)).json()["purchase_token"]
    payment = await payment_of(rows, token)
    async with db.session() as session:  # its time at the provider runs out
        row = await session.get(Payment, payment.id)
        row.expires_at = row.created_at - timedelta(minutes=1)
        await session.commit()
    expired = await settled(rows, wait_for, token)
    assert (expired.status, await accounts(rows)) == ("expired", [])
    fake_yookassa.pay(payment.provider_payment_id)  # the money arrives after all
    assert (await notify(fake_yookassa.notification_body(payment.provider_payment_id))).status_code == 200

    async def delivered() -> GuestPurchase | None:
        [purchase] = [p for p in await rows(GuestPurchase) if p.token == token]
        return purchase if purchase.status == "delivered" else None

    purchase = await wait_for(delivered)
    assert purchase.paid_at is not None and await accounts(rows) == ["guest@example.com"]
    assert len(await rows(Subscription)) == 1


async def test_two_purchases_for_one_new_address_paid_at_once_make_one_account(
    anon_client, make_tariff, make_landing, fake_yookassa, notify, rows, wait_for
):
    tariff = await make_tariff()
    page = await make_landing([tariff.id])
    tokens = [(await buy(anon_client, page["slug"], tariff.id)).json()["purchase_token"] for _ in range(2)]
    bodies = []
    for token in tokens:
        payment = await payment_of(rows, token)
        fake_yookassa.pay(payment.provider_payment_id)
        bodies.append(fake_yookassa.notification_body(payment.provider_payment_id))
    assert [r.status_code for r in await asyncio.gather(*[notify(body) for body in bodies])] == [200, 200]
    purchases = [await settled(rows, wait_for, token) for token in tokens]
    assert [p.status for p in purchases] == ["delivered", "delivered"]
    assert await accounts(rows) == ["guest@example.com"]
    assert len({p.user_id for p in purchases}) == 1
    assert sum(p.cabinet_password is not None for p in purchases) == 1  # made once, its password once
