"""``POST /purchase-tariff``: a tariff bought from the balance, the debit and the
subscription change in one transaction; a 402 with a saved cart when short.

The buyer's row is locked first, so one user's purchases run one at a time: each sees the
balance and the subscription the previous one left."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing.api import (
    PricingError,
    Quote,
    TariffTerms,
    sales_mode,
    tariff_purchase,
    tariff_terms,
)
from subsvc_subscriptions.api import (
    DuplicateTariff,
    Subscription,
    SubscriptionSettings,
    Terms,
    of_user,
    resolve,
)
from subsvc_tariffs.api import lock_for_use
from subsvc_users.api import User

from subsvc.api import price_label
from subsvc.db import utcnow
from subsvc_sales.carts import CartMode, drop_cart, payment_required_with_cart
from subsvc_sales.common import (
    PURCHASES_RESTRICTED,
    SalesError,
    check_not_restricted,
    find_buyer,
    lock_buyer,
    priced,
    put_terms,
    view_of,
)
from subsvc_sales.kernel import InsufficientFunds, PriceChanged, charge
from subsvc_sales.schemas import PurchaseTariffResponse, TariffPurchaseRequest

TARIFFS_MODE_OFF = "Tariffs mode is not enabled"
TARIFF_NOT_FOUND = "Tariff not found or inactive"
NOT_FOR_GROUP = "This tariff is not available for your promo group"


@dataclass(frozen=True)
class Plan:
    """A tariff purchase priced: the tariff, the days bought, the devices and traffic it
    gives, the subscription it goes on (``None``: a new one) and the quote."""

    tariff: TariffTerms
    days: int
    device_limit: int
    traffic_gb: int | None
    existing: Subscription | None
    quote: Quote

    @property
    def cart_mode(self) -> CartMode:
        return "daily_tariff_purchase" if self.tariff.is_daily else "tariff_purchase"

    def cart(self, request: TariffPurchaseRequest) -> dict[str, Any]:
        return request.model_dump(include={"tariff_id", "period_days", "traffic_gb", "subscription_id"})


async def _existing(
    app: Starlette, session: AsyncSession, user_id: int, tariff_id: int, subscription_id: int | None
) -> Subscription | None:
    """The subscription the purchase goes on: multi-tariff, the one named if it is of this
    tariff, else the user's newest of this tariff (any status); single mode, the user's one."""
    if not SubscriptionSettings.of(app).MULTI_TARIFF_ENABLED:
        return await resolve(session, user_id, None, multi=False, for_update=True)
    if subscription_id is not None:
        named = await resolve(session, user_id, subscription_id, multi=True, for_update=True)
        if named is not None and named.tariff_id == tariff_id:
            return named
    held = await of_user(session, user_id, tariff_id=tariff_id, for_update=True)
    return held[0] if held else None


async def plan_purchase(
    app: Starlette, session: AsyncSession, user: User, request: TariffPurchaseRequest
) -> Plan:
    """Price the purchase (the tariff read with a shared lock: it cannot go meanwhile).
    The reference's 400/403/404 refusals."""
    assert user.id is not None
    if sales_mode(app) != "tariffs":
        raise SalesError(400, TARIFFS_MODE_OFF)
    if await lock_for_use(session, request.tariff_id) is None:
        raise SalesError(404, TARIFF_NOT_FOUND)
    found = await tariff_terms(app, session, [request.tariff_id])
    if not found:
        raise SalesError(404, TARIFF_NOT_FOUND)
    tariff = found[0]
    buyer = await find_buyer(app, session, user.id)
    if not tariff.open_to(buyer.promo_group_id):
        raise SalesError(403, NOT_FOR_GROUP)
    existing = await _existing(app, session, user.id, tariff.id, request.subscription_id)
    device_limit = tariff.device_limit
    if existing is not None and existing.tariff_id == tariff.id:
        device_limit = max(device_limit, existing.device_limit)  # extra devices owned are kept
    days = 1 if tariff.is_daily else request.period_days
    traffic = request.traffic_gb if tariff.custom_traffic_enabled else None
    try:
        quote = tariff_purchase(tariff, buyer, days=days, device_limit=device_limit, traffic_gb=traffic)
    except PricingError as error:
        raise priced(error) from None
    return Plan(tariff, days, device_limit, traffic, existing, quote)


async def apply_plan(
    app: Starlette, session: AsyncSession, user: User, plan: Plan, now: datetime
) -> Subscription:
    """Put the bought tariff on the subscription (a new one, or the existing one from now,
    carrying what is left of a paid term; a trial's time is not carried)."""
    tariff = plan.tariff
    terms = Terms(
        tariff_id=tariff.id,
        days=plan.days,
        traffic_limit_gb=tariff.traffic_limit_gb if plan.traffic_gb is None else plan.traffic_gb,
        device_limit=plan.device_limit,
        squads=tariff.allowed_squads,
        is_daily=tariff.is_daily,
        autopay_period_days=None if tariff.is_daily else plan.days,
    )
    try:
        return await put_terms(app, session, user, plan.existing, terms, now)
    except DuplicateTariff as error:
        raise SalesError(409, str(error)) from None


async def purchase_tariff(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    request: TariffPurchaseRequest,
    *,
    now: datetime | None = None,
) -> PurchaseTariffResponse:
    """Buy a tariff from the balance (see the module's text). Short: the cart is saved and
    committed, then 402 with ``cart_saved`` and ``cart_mode``."""
    now = now or utcnow()
    await check_not_restricted(app, session, user_id, PURCHASES_RESTRICTED)
    if sales_mode(app) != "tariffs":
        raise SalesError(400, TARIFFS_MODE_OFF)
    user = await lock_buyer(session, user_id)
    plan = await plan_purchase(app, session, user, request)
    key = plan.existing.id if plan.existing is not None else None
    try:
        charged = await charge(
            app,
            session,
            user_id,
            plan.quote,
            description=f"Покупка тарифа '{plan.tariff.name}' на {plan.days} дн.",
        )
    except InsufficientFunds as error:
        raise await payment_required_with_cart(
            app, session, error, user_id, plan.cart_mode, plan.cart(request), subscription_id=key, now=now
        ) from None
    subscription = await apply_plan(app, session, user, plan, now)
    await drop_cart(app, session, user_id, subscription_id=key)
    quote = plan.quote
    return PurchaseTariffResponse(
        message=f"Tariff '{plan.tariff.name}' purchased successfully",
        subscription=await view_of(app, session, subscription, now),
        tariff_id=plan.tariff.id,
        tariff_name=plan.tariff.name,
        charged_amount=charged.amount_kopeks,
        charged_label=price_label(charged.amount_kopeks),
        balance_kopeks=charged.balance_kopeks,
        balance_label=price_label(charged.balance_kopeks),
        original_price_kopeks=quote.original_kopeks,
        discount_percent=quote.discount_percent,
        discount_kopeks=quote.discount_kopeks,
        promo_offer_discount_percent=charged.personal_percent,
        promo_offer_discount_kopeks=quote.personal_discount_kopeks if charged.personal_percent else 0,
    )


async def complete_tariff_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    payload: dict[str, Any],
    *,
    now: datetime | None = None,
) -> bool:
    """A saved ``tariff_purchase`` cart bought now, re-priced: whether it was (nothing
    changed when not: still short, or no longer on sale)."""
    now = now or utcnow()
    try:
        request = TariffPurchaseRequest.model_validate(payload)
        await check_not_restricted(app, session, user_id, PURCHASES_RESTRICTED)
        user = await lock_buyer(session, user_id)
        plan = await plan_purchase(app, session, user, request)
        await charge(
            app, session, user_id, plan.quote, description=f"Покупка тарифа '{plan.tariff.name}' (корзина)"
        )
        await apply_plan(app, session, user, plan, now)
    except (SalesError, InsufficientFunds, PriceChanged, ValueError):
        return False
    return True
