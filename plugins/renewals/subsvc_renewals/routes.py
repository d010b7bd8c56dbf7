"""Cabinet (access JWT), tag Cabinet Subscription: renewing, autopay, the daily tariff's
pause and the tariff switch. Each takes the 4.1.0 query ``subscription_id`` (one of the
user's own; default: the current one)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import SubscriptionIdQuery

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_renewals import api, autopay, daily, options, renewing, subject, switch_quote, switching
from subsvc_renewals.errors import NO_SUBSCRIPTION
from subsvc_renewals.schemas import (
    AutopayResponse,
    AutopayUpdateRequest,
    PauseResponse,
    RenewalOptionResponse,
    RenewalRequest,
    RenewalResponse,
    SwitchPreview,
    SwitchResult,
    TariffSwitchRequest,
)

router = Router(area="cabinet", tag="Cabinet Subscription")
PRICE_CHANGED = "The price has changed, please try again (the personal discount quoted was used meanwhile)"
RENEW_REFUSALS = {
    400: f"{options.CLASSIC_CANNOT_RENEW}; Cannot renew subscription with status: {{status}}; "
    f"{options.PERIOD_NOT_AVAILABLE}; {options.INVALID_PERIOD}",
    402: "`{code: insufficient_funds, message, missing_amount, cart_saved, cart_mode: extend}`: "
    "the balance is short (the cart is kept)",
    403: subject.RENEWAL_RESTRICTED,
    404: NO_SUBSCRIPTION,
    409: PRICE_CHANGED,
}
SWITCH_REFUSALS = {
    400: "Tariffs mode is not enabled; No active subscription with tariff; `{code, message}` "
    "subscription_expired, trial_cannot_switch, subscription_not_active; Already on this tariff; "
    "`{code, message}` free_tariff_cannot_switch",
    403: "Tariff not available for your promo group; upgrades or downgrades disabled",
    404: switch_quote.TARIFF_NOT_FOUND,
}


@router.get("/cabinet/subscription/renewal-options")
async def get_renewal_options(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> list[RenewalOptionResponse]:
    """The periods the subscription can be renewed for, at the user's price (empty without a
    subscription, for a disabled or pending one, and for a classic one in tariffs mode)."""
    return await api.renewal_options(request.app, session, principal.id, subscription_id)


@router.patch("/cabinet/subscription/autopay", responses={400: autopay.CLASSIC, 404: NO_SUBSCRIPTION})
async def update_autopay(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: AutopayUpdateRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> AutopayResponse:
    """Switch autopay: renewing from the balance `days_before` days before the end (not for
    classic subscriptions in tariffs mode, trials or daily tariffs)."""
    return await autopay.update_autopay(request.app, session, principal.id, payload, subscription_id)


@router.post("/cabinet/subscription/tariff/switch/preview", responses=SWITCH_REFUSALS)
async def preview_tariff_switch(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: TariffSwitchRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> SwitchPreview:
    """What switching to another tariff costs now (§2.3: the difference of the daily rates
    over the days left, free downgrades), and which extra devices it carries or refunds."""
    return await switch_quote.preview_tariff_switch(
        request.app, session, principal.id, payload, subscription_id
    )


@router.post("/cabinet/subscription/renew", responses=RENEW_REFUSALS)
async def renew_subscription(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: RenewalRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> RenewalResponse:
    """Renew the subscription for a period from the balance (debit and extension in one
    transaction); short, an `extend` cart is kept for after a top-up and the answer is 402."""
    return await renewing.renew(request.app, session, principal.id, payload, subscription_id)


@router.post(
    "/cabinet/subscription/pause",
    responses={
        400: f"{daily.NO_TARIFF}; {daily.NOT_DAILY}",
        402: "`{code: insufficient_balance, message, required, balance}`: resuming a disabled daily "
        "subscription costs a day",
        404: NO_SUBSCRIPTION,
    },
)
async def toggle_subscription_pause(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> PauseResponse:
    """Pause or resume a daily tariff's charge; a subscription disabled for a short balance
    resumes by paying a day."""
    return await daily.toggle_pause(request.app, session, principal.id, subscription_id)


@router.post(
    "/cabinet/subscription/tariff/switch",
    responses={
        **SWITCH_REFUSALS,
        400: SWITCH_REFUSALS[400] + f"; {switching.DAILY_INVALID}",
        403: f"{subject.PURCHASES_RESTRICTED}; Tariff not available; upgrades or downgrades disabled",
        402: "`{code: insufficient_funds, message, missing_amount}`: the balance is short",
        409: f"{switching.DUPLICATE}; {PRICE_CHANGED}",
    },
)
async def switch_tariff(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    payload: TariffSwitchRequest,
    subscription_id: SubscriptionIdQuery = None,
) -> SwitchResult:
    """Switch to another tariff now: charged as the preview says (a free switch records a
    0-kopek payment), the extra devices carried up to the new cap and the rest refunded,
    purchased traffic kept; all in one transaction."""
    return await switching.switch_tariff(request.app, session, principal.id, payload, subscription_id)
