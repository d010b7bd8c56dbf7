"""End to end: the referrals plugin's real ``balance.topped_up`` subscriber fails once (its
commit is refused), and the dispatcher's retry pays the commission, once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.orm import Session

from subsvc.db import utcnow
from subsvc.events import Event, OutboxFailure
from subsvc.services import services

referrals_api = pytest.importorskip("subsvc_referrals.api")


@pytest.fixture
def subsvc_plugins() -> list[Any]:
    return ["referrals"]


async def _rewards(client, user_id: int) -> list[int]:
    response = await client.get("/transactions", params={"user_id": user_id, "limit": 200})
    assert response.status_code == 200
    return [t["amount_kopeks"] for t in response.json()["items"] if t["type"] == "referral_reward"]


async def test_a_commission_whose_delivery_failed_once_is_paid_once_by_the_retry(
    app, make_user, new_payment, credit, rows, wait_for, client
):
    events = services(app).events
    now = [utcnow()]
    events.clock = lambda: now[0]
    referrer = await make_user(username="referrer")
    referee = await make_user(username="referee", referred_by_id=referrer.id)

    def refuse_the_reward(_session: Session, published: list[Event]) -> None:
        """The referral processing's commit fails (as on a database blip); the top-up's does not."""
        if any(event.payload.get("type") == "referral_reward" for event in published):
            raise ConnectionError("the database went away")

    events.subscribe_in_transaction(refuse_the_reward)
    payment = await new_payment(referee.id, 20_000, provider_payment_id="retry-1")
    await credit("retry-1", 20_000)
    (failure,) = await wait_for(lambda: rows(OutboxFailure))
    events.transaction_subscribers.remove(refuse_the_reward)
    assert failure.subscriber == "subsvc_referrals.commissions.on_topped_up"
    assert failure.last_error == "ConnectionError: the database went away"
    assert await rows(referrals_api.ReferralEarning) == []
    assert await _rewards(client, referrer.id) == []

    now[0] += timedelta(seconds=events.retry.base_seconds)
    events.wake()
    await wait_for(lambda: _no_failures(rows))
    earnings = await rows(referrals_api.ReferralEarning)
    assert [(e.user_id, e.amount_kopeks, e.key) for e in earnings] == [
        (referrer.id, 15_000, f"topup:{payment.id}")
    ]
    assert await _rewards(client, referrer.id) == [15_000]
    assert await _rewards(client, referee.id) == [10_000]  # the referee's first top-up bonus
    now[0] += timedelta(days=1)
    assert await events.retry_failed() == 0


async def _no_failures(rows) -> bool:
    return not await rows(OutboxFailure)
