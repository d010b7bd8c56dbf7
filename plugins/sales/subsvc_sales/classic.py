"""Classic mode: ``POST /purchase-preview`` prices a selection (period, traffic, servers,
devices), ``POST /purchase`` buys it from the balance, the debit and the subscription change
in one transaction; a 402 with a saved cart when short.

A purchase on the user's subscription puts the selection on it from now: a paid term still
running carries on (its end plus the days bought); a **trial's remaining time is not added**
(the reference extended from the trial's end and could add that time a second time)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing.api import (
    Buyer,
    ClassicSelection,
    PricingError,
    Quote,
    classic_purchase,
    classic_tables,
    price_per_month,
    sales_mode,
    server_prices,
)
from subsvc_subscriptions.api import (
    Subscription,
    Terms,
    resolve,
)
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
from subsvc_sales.schemas import (
    PreviewLine,
    PurchasePreview,
    PurchasePreviewRequest,
    PurchaseResponse,
    PurchaseSelectionRequest,
)

TARIFFS_MODE = "This endpoint is not available in tariffs mode. Use /purchase-tariff instead."
SERVERS_UNAVAILABLE = "Some selected servers are not available"
PERIOD_INVALID = "Invalid or missing subscription period"
CART_MODE: CartMode = "subscription_purchase"


@dataclass(frozen=True)
class ClassicPlan:
    selection: ClassicSelection
    quote: Quote


def _period_days(selection: PurchaseSelectionRequest) -> int:
    if selection.period_days is not None:
        return selection.period_days
    if selection.period_id is not None:
        prefix, _, days = selection.period_id.partition(":")
        if prefix == "days" and days.isdigit() and 0 < int(days) <= 3650:
            return int(days)
    raise SalesError(400, PERIOD_INVALID)


async def plan_classic(
    app: Starlette, session: AsyncSession, buyer: Buyer, request: PurchaseSelectionRequest
) -> ClassicPlan:
    """Price the selection with the engine (the reference's 400 texts)."""
    if sales_mode(app) == "tariffs":
        raise SalesError(400, TARIFFS_MODE)
    ct = classic_tables(app)
    squads = tuple(dict.fromkeys(request.servers or ()))
    offers = await server_prices(session, buyer.promo_group_id, squads) if squads else {}
    for squad in squads:
        offer = offers.get(squad)
        if offer is None or not offer.is_available or offer.is_full or not offer.open_to_group:
            raise SalesError(400, SERVERS_UNAVAILABLE)
    traffic = request.traffic_value if request.traffic_value is not None else -1
    selection = ClassicSelection(
        period_days=_period_days(request),
        traffic_gb=ct.fixed_traffic_gb if not ct.traffic_selectable else traffic,
        squads=squads,
        devices=request.devices if request.devices is not None else ct.default_device_limit,
    )
    prices = {squad: offer.price_kopeks for squad, offer in offers.items()}
    try:
        return ClassicPlan(selection, classic_purchase(ct, prices, buyer, selection))
    except PricingError as error:
        raise priced(error) from None


async def preview_purchase(
    app: Starlette, session: AsyncSession, user_id: int, request: PurchasePreviewRequest
) -> PurchasePreview:
    """The selection priced, with what the balance lacks."""
    buyer = await find_buyer(app, session, user_id)
    plan = await plan_classic(app, session, buyer, request.selection)
    quote, days = plan.quote, plan.selection.period_days
    missing = max(0, quote.final_kopeks - buyer.balance_kopeks)
    return PurchasePreview(
        total_price_kopeks=quote.final_kopeks,
        total_price_label=price_label(quote.final_kopeks),
        original_price_kopeks=quote.original_kopeks,
        original_price_label=price_label(quote.original_kopeks),
        discount_percent=quote.discount_percent,
        discount_kopeks=quote.discount_kopeks,
        per_month_price_kopeks=price_per_month(quote.final_kopeks, days),
        per_month_price_label=price_label(price_per_month(quote.final_kopeks, days)),
        breakdown=[
            PreviewLine(
                kind=line.kind,
                original_kopeks=line.original_kopeks,
                discount_percent=line.percent,
                price_kopeks=line.final_kopeks,
            )
            for line in quote.lines
        ],
        balance_kopeks=buyer.balance_kopeks,
        balance_label=price_label(buyer.balance_kopeks),
        missing_amount_kopeks=missing,
        can_purchase=missing == 0,
        status_message=f"Не хватает {price_label(missing)}" if missing else None,
        selection=_selection_payload(plan.selection),
    )


def _selection_payload(selection: ClassicSelection) -> dict[str, Any]:
    return {
        "period_id": f"days:{selection.period_days}",
        "period_days": selection.period_days,
        "traffic_value": selection.traffic_gb,
        "servers": list(selection.squads),
        "devices": selection.devices,
    }


async def _apply(
    app: Starlette, session: AsyncSession, user: User, plan: ClassicPlan, now: datetime
) -> tuple[Subscription, bool]:
    """Put the selection on the user's subscription (or a new one): see the module's text.
    Whether it converted a trial."""
    assert user.id is not None
    s = plan.selection
    terms = Terms(None, s.period_days, s.traffic_gb, s.devices, s.squads, autopay_period_days=s.period_days)
    existing = await resolve(session, user.id, None, multi=False, for_update=True)
    was_trial = existing is not None and existing.is_trial
    return await put_terms(app, session, user, existing, terms, now), was_trial


async def submit_purchase(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    request: PurchasePreviewRequest,
    *,
    now: datetime | None = None,
) -> PurchaseResponse:
    """Buy the classic selection from the balance. Short: the cart is saved and committed,
    then 402 with ``cart_saved`` and ``cart_mode`` ``subscription_purchase``."""
    now = now or utcnow()
    await check_not_restricted(app, session, user_id, PURCHASES_RESTRICTED)
    if sales_mode(app) == "tariffs":
        raise SalesError(400, TARIFFS_MODE)
    user = await lock_buyer(session, user_id)
    plan = await plan_classic(app, session, await find_buyer(app, session, user_id), request.selection)
    try:
        charged = await charge(
            app,
            session,
            user_id,
            plan.quote,
            description=f"Покупка подписки на {plan.selection.period_days} дн.",
        )
    except InsufficientFunds as error:
        payload = request.selection.model_dump(exclude_none=True)
        raise await payment_required_with_cart(
            app, session, error, user_id, CART_MODE, payload, now=now
        ) from None
    subscription, was_trial = await _apply(app, session, user, plan, now)
    await drop_cart(app, session, user_id)
    return PurchaseResponse(
        message="Subscription purchased successfully",
        subscription=await view_of(app, session, subscription, now),
        was_trial_conversion=was_trial,
        charged_amount=charged.amount_kopeks,
        balance_kopeks=charged.balance_kopeks,
    )


async def complete_classic_cart(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    payload: dict[str, Any],
    *,
    now: datetime | None = None,
) -> bool:
    """A saved ``subscription_purchase`` cart bought now, re-priced: whether it was."""
    now = now or utcnow()
    try:
        selection = PurchaseSelectionRequest.model_validate(payload)
        await check_not_restricted(app, session, user_id, PURCHASES_RESTRICTED)
        user = await lock_buyer(session, user_id)
        plan = await plan_classic(app, session, await find_buyer(app, session, user_id), selection)
        await charge(app, session, user_id, plan.quote, description="Покупка подписки (корзина)")
        await _apply(app, session, user, plan, now)
    except (SalesError, InsufficientFunds, PriceChanged, ValueError):
        return False
    return True
