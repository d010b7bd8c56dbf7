"""``GET /trial`` and ``POST /trial``: one trial per user, even when activations race.

Taking a trial inserts the user's ``sales_trials`` row (its primary key is the user) in the
transaction that creates the trial subscription: a second activation, however close,
fails on that key (or, waiting on the buyer's lock, already sees the row) and answers 400
``Trial already used`` with nothing changed. A paid trial is charged through ``charge()`` in
the same transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet.api import SubscriptionData
from subsvc_pricing.api import tariff_terms
from subsvc_subscriptions.api import LIVE, Subscription, SubscriptionSettings, Terms, create_trial
from subsvc_users.api import User

from subsvc.api import rubles
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_sales.common import SalesError, lock_buyer, view_of
from subsvc_sales.kernel import InsufficientFunds, charge
from subsvc_sales.models import SalesTrial
from subsvc_sales.schemas import TrialInfoResponse
from subsvc_sales.settings import SalesSettings

NOT_FOR_ACCOUNT = "Trial is not available for your account type"
HAS_ACTIVE = "You already have an active subscription"
ALREADY_USED = "Trial already used"


@dataclass(frozen=True)
class TrialTerms:
    """What a trial gives and costs."""

    tariff_id: int | None
    days: int
    traffic_limit_gb: int
    device_limit: int
    squads: tuple[str, ...]
    price_kopeks: int


async def trial_terms(app: Starlette, session: AsyncSession) -> TrialTerms:
    """Subscriptions' ``TRIAL_*`` settings, overridden by the trial tariff
    (``TRIAL_TARIFF_ID``, else the active tariff marked for trials): its traffic, devices and
    squads."""
    settings, sales = SubscriptionSettings.of(app), SalesSettings.of(app)
    price = sales.TRIAL_ACTIVATION_PRICE if sales.TRIAL_PAYMENT_ENABLED else 0
    wanted = [sales.TRIAL_TARIFF_ID] if sales.TRIAL_TARIFF_ID is not None else None
    tariffs = await tariff_terms(app, session, wanted)
    tariff = next((t for t in tariffs if wanted is not None or t.is_trial_available), None)
    if tariff is None:
        return TrialTerms(
            None,
            settings.TRIAL_DURATION_DAYS,
            settings.TRIAL_TRAFFIC_LIMIT_GB,
            settings.TRIAL_DEVICE_LIMIT,
            tuple(settings.TRIAL_SQUAD_UUIDS),
            price,
        )
    squads = tariff.allowed_squads or tuple(settings.TRIAL_SQUAD_UUIDS)
    return TrialTerms(
        tariff.id, settings.TRIAL_DURATION_DAYS, tariff.traffic_limit_gb, tariff.device_limit, squads, price
    )


async def _refusal(app: Starlette, session: AsyncSession, user: User, now: datetime) -> str | None:
    """Why the user may not take a trial now (``None``: they may)."""
    excluded = SalesSettings.of(app).TRIAL_DISABLED_FOR
    is_email = user.messenger_id is None
    if excluded == "all" or (excluded == "email" and is_email) or (excluded == "messenger" and not is_email):
        return NOT_FOR_ACCOUNT
    active = select(Subscription.id).where(
        col(Subscription.user_id) == user.id,
        col(Subscription.status).in_(LIVE),
        col(Subscription.end_date) > now,
        ~col(Subscription.is_trial),
    )
    if (await session.exec(active.limit(1))).first() is not None:
        return HAS_ACTIVE
    taken = select(SalesTrial.user_id).where(col(SalesTrial.user_id) == user.id)
    had_trial = select(Subscription.id).where(
        col(Subscription.user_id) == user.id, col(Subscription.is_trial)
    )
    if (await session.exec(taken)).first() is not None or (await session.exec(had_trial.limit(1))).first():
        return ALREADY_USED
    return None


async def trial_info(
    app: Starlette, session: AsyncSession, user_id: int, *, now: datetime | None = None
) -> TrialInfoResponse:
    """What a trial would give the user, and whether they may take it (why not)."""
    now = now or utcnow()
    user = await session.get(User, user_id)
    if user is None:
        raise SalesError(404, "User not found")
    terms = await trial_terms(app, session)
    reason = await _refusal(app, session, user, now)
    return TrialInfoResponse(
        is_available=reason is None,
        duration_days=terms.days,
        traffic_limit_gb=terms.traffic_limit_gb,
        device_limit=terms.device_limit,
        requires_payment=terms.price_kopeks > 0,
        price_kopeks=terms.price_kopeks,
        price_rubles=rubles(terms.price_kopeks),
        reason_unavailable=reason,
    )


async def activate_trial(
    app: Starlette, session: AsyncSession, user_id: int, *, now: datetime | None = None
) -> SubscriptionData:
    """Take the user's one trial (see the module's text): 400 with the reason it may not be
    taken, or ``Insufficient balance. Need {x.xx} RUB`` for a paid trial."""
    now = now or utcnow()
    user = await lock_buyer(session, user_id)
    reason = await _refusal(app, session, user, now)
    if reason is not None:
        raise SalesError(400, reason)
    terms = await trial_terms(app, session)
    if terms.price_kopeks > 0:
        try:
            await charge(app, session, user_id, terms.price_kopeks, description="Активация пробного периода")
        except InsufficientFunds:
            raise SalesError(400, f"Insufficient balance. Need {terms.price_kopeks / 100:.2f} RUB") from None
    try:
        async with session.begin_nested():
            session.add(SalesTrial(user_id=user_id, price_kopeks=terms.price_kopeks, activated_at=now))
            await session.flush()
    except IntegrityError:
        raise SalesError(400, ALREADY_USED) from None
    subscription = await create_trial(
        session,
        services(app).events,
        SubscriptionSettings.of(app),
        user,
        Terms(terms.tariff_id, terms.days, terms.traffic_limit_gb, terms.device_limit, terms.squads),
        now=now,
    )
    taken = await session.get(SalesTrial, user_id)
    assert taken is not None
    taken.subscription_id = subscription.id
    session.add(taken)
    return await view_of(app, session, subscription, now)
