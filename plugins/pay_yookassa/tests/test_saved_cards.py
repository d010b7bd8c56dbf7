"""Saved cards: with recurrent payments enabled a card payment asks YooKassa to save the card;
once that payment is credited (notification or check) the card YooKassa reports saved is
recorded — in the crediting transaction, once — and the cabinet lists and unlinks the user's
own cards. Disabled: an empty list and 400."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from subsvc_pay_yookassa.models import SavedCard
from subsvc_pay_yookassa.settings import YookassaSettings
from subsvc_payments.api import Payment
from subsvc_payments.testing import topup

from subsvc.testing import asgi_transport, bearer_client

CARDS = "/cabinet/balance/saved-cards"
URL = "/webhooks/payments/yookassa"
recurrent = pytest.mark.yookassa_env(YOOKASSA_RECURRENT_ENABLED="true", YOOKASSA_SBP_ENABLED="true")


@pytest.fixture
def pay_and_notify(app: Any, fake_yookassa: Any, rows: Any) -> Any:
    """``await pay_and_notify(user_id, option, last4=...)``: the user's top-up, paid at the
    fake and notified; the payment."""

    async def run(
        user_id: int, option: str = "card", paid: int | None = None, last4: str = "4444"
    ) -> Payment:
        async with bearer_client(app, app.state.jwt.access_token(user_id)) as http:
            answer = await topup(http, "yookassa", 20_000, option)
        [payment] = [p for p in await rows(Payment) if str(p.id) == answer["payment_id"]]
        fake_yookassa.pay(payment.provider_payment_id, paid, last4=last4)
        body = fake_yookassa.notification_body(payment.provider_payment_id)
        async with httpx2.AsyncClient(transport=asgi_transport(app), base_url="http://testserver") as hook:
            for _ in range(2):
                assert (await hook.post(URL, content=body)).status_code == 200
        return payment

    return run


async def listed(http: Any) -> dict[str, Any]:
    response = await http.get(CARDS)
    assert response.status_code == 200
    answer: dict[str, Any] = response.json()
    return answer


async def test_disabled_recurrent_lists_nothing_and_refuses_to_unlink(member):
    assert await listed(member) == {"cards": [], "recurrent_enabled": False}
    refused = await member.delete(f"{CARDS}/1")
    assert (refused.status_code, refused.json()) == (400, {"detail": "Recurrent payments are not enabled"})


@recurrent
async def test_a_paid_card_payment_saves_the_card_once_and_the_owner_sees_it(
    insert_user, cabinet, pay_and_notify, rows
):
    owner, other = await insert_user(), await insert_user()
    payment = await pay_and_notify(owner.id, last4="1234")
    [card] = await rows(SavedCard)
    assert (card.user_id, card.payment_id, card.is_active) == (owner.id, payment.id, True)
    assert card.payment_method_id == payment.provider_payment_id  # YooKassa's saved method id
    async with cabinet(owner.id) as http:
        answer = await listed(http)
    assert answer["recurrent_enabled"] is True
    [shown] = answer["cards"]
    assert {key: shown[key] for key in ("id", "method_type", "card_last4", "card_type", "title")} == {
        "id": card.id,
        "method_type": "bank_card",
        "card_last4": "1234",
        "card_type": "Mir",
        "title": "Bank card *1234",
    }
    async with cabinet(other.id) as http:
        assert (await listed(http))["cards"] == []


@recurrent
async def test_sbp_and_refused_payments_save_no_card(insert_user, pay_and_notify, rows):
    user = await insert_user()
    await pay_and_notify(user.id, "sbp")
    mismatched = await pay_and_notify(user.id, paid=19_000)
    assert (await rows(Payment, id=mismatched.id))[0].status == "refused_mismatch"
    assert await rows(SavedCard) == []


@recurrent
async def test_a_card_saved_by_a_check_is_recorded_too(insert_user, cabinet, fake_yookassa, rows):
    user = await insert_user()
    async with cabinet(user.id) as http:
        await topup(http, "yookassa", 20_000)
        [payment] = await rows(Payment)
        fake_yookassa.pay(payment.provider_payment_id)
        checked = await http.post(f"/cabinet/balance/pending-payments/yookassa/{payment.id}/check")
        assert checked.json()["new_status"] == "succeeded"
        assert [c["card_last4"] for c in (await listed(http))["cards"]] == ["4444"]


@recurrent
async def test_unlinking_deactivates_only_the_owners_active_card(insert_user, cabinet, pay_and_notify, rows):
    owner, other = await insert_user(), await insert_user()
    await pay_and_notify(owner.id, last4="1111")
    await pay_and_notify(owner.id, last4="2222")
    first, second = sorted(await rows(SavedCard), key=lambda card: card.id)
    async with cabinet(other.id) as http:
        foreign = await http.delete(f"{CARDS}/{first.id}")
        assert (foreign.status_code, foreign.json()) == (404, {"detail": "Saved card not found"})
    async with cabinet(owner.id) as http:
        done = await http.delete(f"{CARDS}/{first.id}")
        assert (done.status_code, done.json()) == (
            200,
            {"success": True, "message": "Card unlinked successfully"},
        )
        assert [c["card_last4"] for c in (await listed(http))["cards"]] == ["2222"]
        assert (await http.delete(f"{CARDS}/{first.id}")).status_code == 404
        assert (await http.delete(f"{CARDS}/999999")).status_code == 404
    assert [(c.id, c.is_active) for c in sorted(await rows(SavedCard), key=lambda c: c.id)] == [
        (first.id, False),
        (second.id, True),
    ]


@recurrent
async def test_cards_stay_recorded_when_recurrent_is_turned_off(
    insert_user, cabinet, pay_and_notify, change_settings
):
    user = await insert_user()
    await pay_and_notify(user.id)
    change_settings(YookassaSettings, YOOKASSA_RECURRENT_ENABLED=False)
    async with cabinet(user.id) as http:
        assert await listed(http) == {"cards": [], "recurrent_enabled": False}
    change_settings(YookassaSettings, YOOKASSA_RECURRENT_ENABLED=True)
    async with cabinet(user.id) as http:
        assert len((await listed(http))["cards"]) == 1
