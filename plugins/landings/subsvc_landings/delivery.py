"""Giving a paid purchase's subscription to its account, once."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions.api import SubscriptionSettings, Terms, create_paid, extend, of_user
from subsvc_tariffs.api import find_tariff
from subsvc_users.api import User, touch, verify_email

from subsvc.db import utcnow
from subsvc.services import services
from subsvc_landings.accounts import Account
from subsvc_landings.models import DELIVERED, FAILED, GuestPurchase

VERIFIED_BY = "guest_purchase"  # as the reference: a paid purchase's new address counts as verified


async def lock_purchase(session: AsyncSession, token: str) -> GuestPurchase | None:
    """The purchase of that token, its row locked until the transaction ends (PostgreSQL:
    ``FOR UPDATE``; SQLite: a touching UPDATE takes the database's write turn first)."""
    where = col(GuestPurchase.token) == token
    if session.get_bind().dialect.name != "postgresql":
        await session.exec(update(GuestPurchase).where(where).values(token=col(GuestPurchase.token)))
    query = select(GuestPurchase).where(where).with_for_update().execution_options(populate_existing=True)
    return (await session.exec(query)).first()


async def deliver(app: Starlette, session: AsyncSession, purchase: GuestPurchase, user_id: int) -> None:
    """Extend the user's live subscription of the tariff, else start a paid one; the purchase
    becomes ``delivered`` with its links (``failed`` when the tariff is gone); an account made
    for it has its address verified. The caller holds the purchase's lock and checked its
    status."""
    now = utcnow()
    tariff = await find_tariff(session, purchase.tariff_id) if purchase.tariff_id is not None else None
    if tariff is None:
        purchase.status = FAILED
        session.add(purchase)
        return
    await touch(session, user_id)
    user = await session.get(User, user_id, populate_existing=True)
    assert user is not None
    if purchase.new_account and purchase.cabinet_email is not None:
        verify_email(session, user, purchase.cabinet_email, VERIFIED_BY)
    events = services(app).events
    live = await of_user(session, user_id, tariff_id=tariff.id, live_only=True, for_update=True)
    if live:
        subscription = await extend(session, events, live[0], purchase.period_days, now=now)
    else:
        terms = Terms(
            tariff_id=tariff.id,
            days=purchase.period_days,
            traffic_limit_gb=tariff.traffic_limit_gb,
            device_limit=tariff.device_limit,
            squads=list(tariff.allowed_squads),
        )
        subscription = await create_paid(session, events, SubscriptionSettings.of(app), user, terms, now=now)
    purchase.user_id = user_id
    purchase.status = DELIVERED
    purchase.delivered_at = now
    purchase.subscription_url = subscription.subscription_url
    purchase.subscription_crypto_link = subscription.subscription_crypto_link
    session.add(purchase)
    await session.flush()


async def deliver_to(
    app: Starlette, session: AsyncSession, purchase: GuestPurchase, account: Account
) -> None:
    """:func:`deliver` to a contact's account; one made for the purchase keeps its address and
    one-time password on the purchase, for the status page to show once."""
    assert account.user.id is not None
    if account.password is not None:
        purchase.new_account = True
        purchase.cabinet_email, purchase.cabinet_password = account.user.email, account.password
    await deliver(app, session, purchase, account.user.id)
