"""Cabinet (access JWT), tag Cabinet Subscription: buying a subscription. The answers the
contract leaves open (objects with any fields) are the services' models dumped."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet.api import SubscriptionData
from subsvc_subscriptions.api import SubscriptionIdQuery

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_sales import classic, options, tariff_purchase, trial
from subsvc_sales.schemas import (
    PurchasePreviewRequest,
    TariffPurchaseRequest,
    TrialActivateRequest,
    TrialInfoResponse,
)

router = Router(area="cabinet", tag="Cabinet Subscription")
INSUFFICIENT = (
    "`{code: insufficient_funds, message, missing_amount, cart_saved, cart_mode}`: the balance is short "
    "(the cart is saved)"
)
RESTRICTED = "Subscription purchases are restricted for this account"
CLASSIC_400 = "Tariffs mode, or a selection the price tables do not sell (the reference's texts)"


@router.get("/cabinet/subscription/purchase-options", responses={404: "Subscription not found"})
async def get_purchase_options(
    request: Request, session: AsyncSession, principal: Principal, subscription_id: SubscriptionIdQuery = None
) -> dict[str, Any]:
    """What the user can buy in the sales mode, each price the pricing engine's (tariffs: the
    tariffs open to the user's promo group with their periods; classic: periods, traffic
    tiers, servers and devices with a default selection)."""
    found = await options.purchase_options(request.app, session, principal.id, subscription_id)
    return found.model_dump(mode="json")


@router.post("/cabinet/subscription/purchase-preview", responses={400: CLASSIC_400, 404: "User not found"})
async def preview_purchase(
    request: Request, session: AsyncSession, principal: Principal, payload: PurchasePreviewRequest
) -> dict[str, Any]:
    """Classic mode: the selection priced (total, discounts, lines, what the balance lacks)."""
    found = await classic.preview_purchase(request.app, session, principal.id, payload)
    return found.model_dump(mode="json")


@router.post(
    "/cabinet/subscription/purchase",
    responses={
        400: CLASSIC_400,
        402: INSUFFICIENT,
        403: RESTRICTED,
        404: "User not found",
        409: "The price has changed, please try again (the personal discount quoted was used meanwhile)",
    },
)
async def submit_purchase(
    request: Request, session: AsyncSession, principal: Principal, payload: PurchasePreviewRequest
) -> dict[str, Any]:
    """Classic mode: buy the selection from the balance (the debit and the subscription
    change in one transaction; a trial is converted from now, its remaining time not added)."""
    done = await classic.submit_purchase(request.app, session, principal.id, payload)
    return done.model_dump(mode="json")


@router.post(
    "/cabinet/subscription/purchase-tariff",
    responses={
        400: "Tariffs mode is not enabled, or a period / traffic the tariff does not sell",
        402: INSUFFICIENT,
        403: f"{RESTRICTED}, or This tariff is not available for your promo group",
        404: "Tariff not found or inactive",
        409: "You already have an active subscription for this tariff, or The price has changed, please try "
        "again (the personal discount quoted was used meanwhile)",
    },
)
async def purchase_tariff(
    request: Request, session: AsyncSession, principal: Principal, payload: TariffPurchaseRequest
) -> dict[str, Any]:
    """Buy a tariff from the balance: a new subscription, or the user's subscription (of that
    tariff in multi-tariff mode) from now with what is left of its paid term carried."""
    done = await tariff_purchase.purchase_tariff(request.app, session, principal.id, payload)
    return done.model_dump(mode="json")


@router.get("/cabinet/subscription/trial", responses={404: "User not found"})
async def get_trial_info(request: Request, session: AsyncSession, principal: Principal) -> TrialInfoResponse:
    """What a trial gives and costs, and whether the user may take it (why not)."""
    return await trial.trial_info(request.app, session, principal.id)


@router.post(
    "/cabinet/subscription/trial",
    responses={
        400: "Trial already used, You already have an active subscription, Trial is not available for your "
        "account type, or Insufficient balance. Need {x.xx} RUB",
        404: "User not found",
    },
)
async def activate_trial(
    request: Request, session: AsyncSession, principal: Principal, payload: TrialActivateRequest | None = None
) -> SubscriptionData:
    """Take the user's one trial (one per user, even under concurrent requests)."""
    return await trial.activate_trial(request.app, session, principal.id)
