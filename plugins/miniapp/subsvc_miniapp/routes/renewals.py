"""``/miniapp/subscription/renewal[/options]``, ``/tariff/switch[/preview]`` and
``/daily/toggle-pause``: the renewals plugin's services (its api), refusals in the object
style (``{code, message}``; the 402 ``insufficient_funds`` body as the cabinet's, its
``extend`` cart saved)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_pricing.api import PricingSettings
from subsvc_renewals.api import (
    PauseResponse,
    RenewalError,
    RenewalRequest,
    SwitchPreview,
    SwitchResult,
    TariffSwitchRequest,
    preview_tariff_switch,
    renew,
    renewal_options,
    switch_tariff,
    toggle_pause,
)

from subsvc.api import HTTPError, Router, price_label
from subsvc_miniapp import auth, dashboard
from subsvc_miniapp.refusals import object_style
from subsvc_miniapp.renewal_schemas import (
    MiniAppDailySubscriptionToggleRequest,
    MiniAppSubscriptionRenewalOptionsRequest,
    MiniAppSubscriptionRenewalOptionsResponse,
    MiniAppSubscriptionRenewalPeriod,
    MiniAppSubscriptionRenewalRequest,
    MiniAppSubscriptionRenewalResponse,
    MiniAppTariffSwitchRequest,
)

router = Router(area="web", tag="miniapp")
NO_PERIOD = {"code": "invalid_period", "message": "Selected renewal period is not available"}
MAX_PERIOD_DAYS = 3650  # what the cabinet's renewal request takes
SWITCH_PERIOD_DAYS = 30  # the cabinet's switch request needs a period; the switch does not use it
REFUSED = (
    "`{code, message}`: the renewals plugin's refusal (the cabinet's text; `code` its own or of the status)"
)
CHARGED = {
    **auth.USER_RESPONSES,
    400: REFUSED,
    402: "`{code: insufficient_funds, message, missing_amount, ...}`: the balance is short (cart saved)",
    403: REFUSED,
    404: "`{code: subscription_not_found}`, or the user's refusals",
    409: REFUSED,
}


def _months(days: int) -> int:
    return max(1, round(days / 30))


@router.post("/miniapp/subscription/renewal/options", public=True, responses=auth.USER_RESPONSES)
async def get_subscription_renewal_options(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionRenewalOptionsRequest
) -> MiniAppSubscriptionRenewalOptionsResponse:
    """The periods the subscription can be renewed for at the user's price (the cabinet's
    renewal options), the balance, what is missing for the cheapest, and autopay."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    app = request.app
    subscription = await dashboard.current_subscription(app, session, user.id, body.subscriptionId)
    options = await renewal_options(app, session, user.id, body.subscriptionId)
    periods = [
        MiniAppSubscriptionRenewalPeriod(
            id=str(option.period_days),
            days=option.period_days,
            months=_months(option.period_days),
            priceKopeks=option.price_kopeks,
            priceLabel=price_label(option.price_kopeks),
            originalPriceKopeks=option.original_price_kopeks,
            originalPriceLabel=(
                price_label(option.original_price_kopeks)
                if option.original_price_kopeks is not None
                else None
            ),
            discountPercent=option.discount_percent,
            pricePerMonthKopeks=round(option.price_kopeks / _months(option.period_days)),
            pricePerMonthLabel=price_label(round(option.price_kopeks / _months(option.period_days))),
            title=f"{option.period_days} дн.",
        )
        for option in options
    ]
    cheapest = min((o.price_kopeks for o in options), default=None)
    missing = max(0, cheapest - user.balance_kopeks) if cheapest is not None else None
    autopay = dashboard.autopay_of(subscription)
    return MiniAppSubscriptionRenewalOptionsResponse(
        subscriptionId=subscription.id if subscription else None,
        currency="RUB",
        balanceKopeks=user.balance_kopeks,
        balanceLabel=price_label(user.balance_kopeks),
        periods=periods,
        defaultPeriodId=periods[0].id if periods else None,
        missingAmountKopeks=missing,
        statusMessage=None if periods else "Renewal is not available for this subscription",
        autopay_enabled=autopay.enabled,
        autopay_days_before=autopay.days_before,
        autopay_days_options=dashboard.AUTOPAY_DAYS_OPTIONS,
        autopay=autopay,
        autopay_settings=autopay,
        isTrial=bool(subscription and subscription.is_trial),
        salesMode=PricingSettings.of(app).SALES_MODE,
    )


def _period_days(body: MiniAppSubscriptionRenewalRequest) -> int:
    """``periodDays``, else the days ``periodId`` names (the options' ids are their days)."""
    days = body.periodDays
    if days is None and body.periodId is not None and body.periodId.strip().isdigit():
        days = int(body.periodId.strip())
    if days is None or not 1 <= days <= MAX_PERIOD_DAYS:
        raise HTTPError(400, NO_PERIOD)
    return days


@router.post("/miniapp/subscription/renewal", public=True, responses=CHARGED)
async def submit_subscription_renewal(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionRenewalRequest
) -> MiniAppSubscriptionRenewalResponse:
    """Renew the subscription from the balance (the cabinet's renewal: same prices, rules,
    402 with the `extend` cart saved when short). `method` is accepted; the missing amount is
    not paid through a provider here (top up with `payments/create`: the cart completes)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    wanted = RenewalRequest(period_days=_period_days(body), subscription_id=body.subscriptionId)
    renewed = await object_style(
        renew(request.app, session, user.id, wanted, body.subscriptionId), RenewalError
    )
    await session.refresh(user)
    subscription = await dashboard.current_subscription(request.app, session, user.id, body.subscriptionId)
    return MiniAppSubscriptionRenewalResponse(
        message=renewed.message,
        balanceKopeks=user.balance_kopeks,
        balanceLabel=price_label(user.balance_kopeks),
        subscriptionId=subscription.id if subscription else None,
        renewedUntil=renewed.new_end_date.isoformat(),
    )


def _switch_request(body: MiniAppTariffSwitchRequest) -> TariffSwitchRequest:
    return TariffSwitchRequest(
        tariff_id=body.tariff_id, period_days=SWITCH_PERIOD_DAYS, subscription_id=body.subscriptionId
    )


@router.post(
    "/miniapp/subscription/tariff/switch/preview",
    public=True,
    response_model=SwitchPreview,
    responses=CHARGED,
)
async def preview_tariff_switch_endpoint(
    request: Request, session: AsyncSession, body: MiniAppTariffSwitchRequest
) -> SwitchPreview:
    """What switching to the tariff costs now (the cabinet's preview: the difference of the
    daily rates over the days left, free downgrades) and what it does to extra devices."""
    user = await auth.user_of(request.app, session, body.init_data)
    assert user.id is not None
    return await object_style(
        preview_tariff_switch(request.app, session, user.id, _switch_request(body), body.subscriptionId),
        RenewalError,
    )


@router.post(
    "/miniapp/subscription/tariff/switch", public=True, response_model=SwitchResult, responses=CHARGED
)
async def switch_tariff_endpoint(
    request: Request, session: AsyncSession, body: MiniAppTariffSwitchRequest
) -> SwitchResult:
    """Switch to the tariff now, keeping the end date (the cabinet's switch: charged as the
    preview says, extra devices carried or refunded, in one transaction)."""
    user = await auth.user_of(request.app, session, body.init_data)
    assert user.id is not None
    return await object_style(
        switch_tariff(request.app, session, user.id, _switch_request(body), body.subscriptionId), RenewalError
    )


@router.post(
    "/miniapp/subscription/daily/toggle-pause", public=True, response_model=PauseResponse, responses=CHARGED
)
async def toggle_daily_subscription_pause(
    request: Request, session: AsyncSession, body: MiniAppDailySubscriptionToggleRequest
) -> PauseResponse:
    """Pause a daily tariff's charge, or resume it (a disabled one pays a day first: 402
    `insufficient_balance` when short)."""
    user = await auth.user_of(request.app, session, body.init_data)
    assert user.id is not None
    return await object_style(toggle_pause(request.app, session, user.id, body.subscriptionId), RenewalError)
