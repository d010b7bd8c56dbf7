"""Commissions and first-top-up bonuses by behaviours-referrals §3, paid once per payment and
atomically with the first-top-up claim."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy.orm import Session
from sqlmodel import col, select
from subsvc_referrals.api import ReferralEarning, update_referral_settings
from subsvc_referrals.models import ReferralFirstTopup

from subsvc.events import Event, OutboxEvent
from subsvc.services import services

_refs = itertools.count(1)


@dataclass
class Case:
    """Settings, the referee's top-ups in order, and what the referrer and referee get."""

    name: str
    topups: list[int]
    referrer_earnings: list[int]
    referee_bonus: int
    settings: dict[str, Any] = field(default_factory=dict)


CASES = [
    Case("below the minimum: commission only", [5_000], [1_250], 0),
    Case("first qualifying top-up: both bonuses and the commission", [20_000], [15_000], 10_000),
    Case("a later top-up: commission only", [20_000, 10_000], [15_000, 2_500], 10_000),
    Case(
        "below then qualifying: the bonuses come with the first qualifying",
        [5_000, 10_000],
        [1_250, 12_500],
        10_000,
    ),
    Case(
        "first-payment percent, then the base",
        [20_000, 10_000],
        [20_000, 2_500],
        10_000,
        {"first_payment_commission_percent": 50},
    ),
    Case(
        "tiers by paying referees replace the base after the first payment",
        [20_000, 10_000],
        [15_000, 3_000],
        10_000,
        {"recurring_commission_tiers": "0:10,1:30"},
    ),
    Case(
        "below the first tier the base applies",
        [20_000, 10_000],
        [15_000, 2_500],
        10_000,
        {"recurring_commission_tiers": "5:40"},
    ),
    Case(
        "per-pair limit stops commissions",
        [20_000, 10_000, 10_000],
        [15_000],
        10_000,
        {"max_commission_payments": 1},
    ),
    Case(
        "the limit is not checked on the first qualifying top-up",
        [5_000, 20_000, 10_000],
        [1_250, 15_000],
        10_000,
        {"max_commission_payments": 1},
    ),
    Case(
        "the commission is truncated",
        [10_001],
        [3_300 + 0],
        0,
        {"commission_percent": 33, "minimum_topup_kopeks": 20_000},
    ),
    Case(
        "custom bonuses",
        [30_000],
        [5_000 + 7_500],
        2_000,
        {"inviter_bonus_kopeks": 5_000, "first_topup_bonus_kopeks": 2_000},
    ),
    Case("zero percent below the minimum pays nothing", [5_000], [], 0, {"commission_percent": 0}),
    Case("programme off: nothing", [20_000, 10_000], [], 0, {"enabled": False}),
]


@pytest.fixture
def configure(app, db):
    async def run(**values: Any) -> None:
        async with db.session() as session:
            await update_referral_settings(app, session, values)
            await session.commit()

    return run


@pytest.fixture
async def pair(make_user):
    referrer = await make_user(username="referrer")
    referee = await make_user(username="referee", referred_by_id=referrer.id)
    return referrer, referee


@pytest.fixture
def pay(new_payment, credit, rows, wait_for):
    """A provider payment of the referee, credited; waits until the top-up is processed."""

    async def run(user_id: int, amount: int) -> int:
        reference = f"ref-{next(_refs)}"
        payment = await new_payment(user_id, amount, provider_payment_id=reference)
        await credit(reference, amount)
        await wait_for(lambda: _processed(rows, payment.id))
        return int(payment.id)

    return run


async def _processed(rows, _payment_id: int) -> bool:
    outbox = await rows(OutboxEvent)
    return all(row.dispatched_at is not None for row in outbox)


async def _claims(db) -> list[int]:
    async with db.session() as session:
        return list((await session.exec(select(col(ReferralFirstTopup.referee_id)))).all())


async def _rewards(client, user_id: int) -> list[int]:
    response = await client.get("/transactions", params={"user_id": user_id, "limit": 200})
    assert response.status_code == 200
    return [t["amount_kopeks"] for t in reversed(response.json()["items"]) if t["type"] == "referral_reward"]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_commission_table(case: Case, configure, pair, pay, rows, client):
    referrer, referee = pair
    if case.settings:
        await configure(**case.settings)
    for amount in case.topups:
        await pay(referee.id, amount)
    earnings = sorted(await rows(ReferralEarning, user_id=referrer.id), key=lambda e: e.id)
    assert [e.amount_kopeks for e in earnings] == case.referrer_earnings
    assert await _rewards(client, referrer.id) == [a for a in case.referrer_earnings if a > 0]
    assert sum(await _rewards(client, referee.id)) == case.referee_bonus


async def test_individual_percent_from_the_hook(app, configure, pair, pay, rows):
    """The ``referral_commission_percent`` hook's answer is the base percent."""
    referrer, referee = pair
    # the partners plugin implements the hook; here a plugin of the test answers 40
    app.state.plugins.register(_FortyPercent(referrer.id), name="test-forty")
    await pay(referee.id, 5_000)
    assert [e.amount_kopeks for e in await rows(ReferralEarning, user_id=referrer.id)] == [2_000]


class _FortyPercent:
    def __init__(self, user_id: int) -> None:
        self.user_id = user_id

    from subsvc.hookspecs import hookimpl as _impl

    @_impl
    async def referral_commission_percent(self, session, user_id):
        return 40 if user_id == self.user_id else None


async def _deliveries(app, outbox_rows) -> list[Event]:
    return [
        Event(r.id, r.event_type, r.payload, r.created_at)
        for r in outbox_rows
        if r.event_type == "balance.topped_up"
    ]


async def test_one_payment_delivered_three_times_pays_once(app, db, pair, pay, rows, client):
    referrer, referee = pair
    await pay(referee.id, 20_000)
    (event,) = await _deliveries(app, await rows(OutboxEvent))
    subscribers = services(app).events.subscribers["balance.topped_up"]
    await asyncio.gather(*(subscriber(event) for subscriber in subscribers for _ in range(3)))  # at once
    for _ in range(3):  # and again, one after the other
        await asyncio.gather(*(subscriber(event) for subscriber in subscribers))
    assert [e.amount_kopeks for e in await rows(ReferralEarning, user_id=referrer.id)] == [15_000]
    assert await _rewards(client, referrer.id) == [15_000]
    assert await _rewards(client, referee.id) == [10_000]
    assert await _claims(db) == [referee.id]


async def test_a_failure_before_the_commit_leaves_neither_claim_nor_bonus(app, db, pair, pay, rows, client):
    """A failing in-transaction subscriber aborts the commit of the referral processing: no
    first-top-up claim, no earning, no bonus; a later delivery pays everything once."""
    referrer, referee = pair
    events = services(app).events

    def crash(_session: Session, published: list[Event]) -> None:
        if any(e.payload.get("type") == "referral_reward" for e in published):
            raise RuntimeError("crash between the flag and the bonus")

    events.subscribe_in_transaction(crash)
    try:
        await pay(referee.id, 20_000)
    finally:
        events.transaction_subscribers.remove(crash)
    assert await _claims(db) == []
    assert await rows(ReferralEarning) == []
    assert await _rewards(client, referrer.id) == []
    assert await _rewards(client, referee.id) == []
    (event,) = await _deliveries(app, await rows(OutboxEvent))
    for subscriber in events.subscribers["balance.topped_up"]:
        await subscriber(event)
    assert await _rewards(client, referrer.id) == [15_000]
    assert await _rewards(client, referee.id) == [10_000]


async def test_no_referrer_no_earning(make_user, pay, rows):
    user = await make_user()
    await pay(user.id, 20_000)
    assert await rows(ReferralEarning) == []


async def test_both_sides_are_notified_in_the_messenger(pair, pay, fake_bot_api, wait_for):
    referrer, referee = pair
    await pay(referee.id, 20_000)
    await wait_for(
        lambda: fake_bot_api.sent_to(referrer.messenger_id) and fake_bot_api.sent_to(referee.messenger_id)
    )
    assert "15" in fake_bot_api.sent_to(referrer.messenger_id)[0]["text"]
    assert "100" in fake_bot_api.sent_to(referee.messenger_id)[0]["text"]
