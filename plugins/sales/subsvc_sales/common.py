"""What the selling operations share: their domain error, the buyer and its lock, restrictions,
prices turned into answers, bought terms put on a subscription, and the cabinet's view of a
subscription."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet.api import SubscriptionData, subscription_views
from subsvc_pricing.api import Buyer, PricingError, buyer_of
from subsvc_subscriptions.api import (
    LIVE,
    Subscription,
    SubscriptionSettings,
    Terms,
    actual_status,
    apply_tariff,
    create_paid,
)
from subsvc_users.api import User, record_paid_subscription, touch

from subsvc.api import HTTPError
from subsvc.services import services

PURCHASES_RESTRICTED = "Subscription purchases are restricted for this account"
RESTRICTED_HOOK = "sales_purchases_restricted"


class SalesError(HTTPError):
    """A refusal of a selling operation: the cabinet answers it as it is (``status``,
    ``detail``); the mini app maps it onto its own body."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(status, detail)

    @property
    def status(self) -> int:
        return self.status_code


def priced(error: PricingError) -> SalesError:
    """The engine's refusal as the operation answers it."""
    return SalesError(error.status, error.message)


async def find_buyer(app: Starlette, session: AsyncSession, user_id: int) -> Buyer:
    """The user as the pricing engine's buyer. 404 ``User not found``."""
    buyer = await buyer_of(app, session, user_id)
    if buyer is None:
        raise SalesError(404, "User not found")
    return buyer


async def lock_buyer(session: AsyncSession, user_id: int) -> User:
    """The user's row, locked until the transaction ends (PostgreSQL: ``SELECT ... FOR
    UPDATE``; SQLite: the database's write lock, taken by users' ``touch``): one purchase of a
    user at a time. 404 ``User not found``."""
    if session.get_bind().dialect.name == "sqlite":
        await touch(session, user_id)
    user = (await session.exec(select(User).where(col(User.id) == user_id).with_for_update())).first()
    if user is None:
        raise SalesError(404, "User not found")
    return user


async def check_not_restricted(app: Starlette, session: AsyncSession, user_id: int, text: str) -> None:
    """403 ``text`` when a plugin that keeps account restrictions says the user may not buy
    subscriptions (hook ``sales_purchases_restricted``)."""
    if await services(app).plugins.first_result(RESTRICTED_HOOK, app=app, session=session, user_id=user_id):
        raise SalesError(403, text)


async def put_terms(
    app: Starlette,
    session: AsyncSession,
    user: User,
    existing: Subscription | None,
    terms: Terms,
    now: datetime,
) -> Subscription:
    """Put bought ``terms`` on a new subscription, or on ``existing`` from ``now`` carrying what
    is left of a paid term (a trial's time is not carried)."""
    events = services(app).events
    if existing is None:
        return await create_paid(session, events, SubscriptionSettings.of(app), user, terms, now=now)
    carry = 0
    if existing.status in LIVE and not existing.is_trial and existing.end_date > now:
        carry = int((existing.end_date - now).total_seconds())
    subscription = await apply_tariff(session, events, existing, terms, now=now, carry_seconds=carry)
    record_paid_subscription(session, user, now)
    return subscription


async def view_of(
    app: Starlette, session: AsyncSession, subscription: Subscription, now: datetime
) -> SubscriptionData:
    """The cabinet's view of the subscription as it is now in the session."""
    values = subscription.model_dump()
    values["actual_status"] = actual_status(subscription.status, subscription.end_date, now)
    (view,) = await subscription_views(app, session, [values])
    return view
