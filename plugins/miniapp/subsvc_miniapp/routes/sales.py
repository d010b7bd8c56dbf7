"""``/miniapp/subscription/trial``, ``/purchase[/options|/preview]``, ``/tariffs`` and
``/tariff/purchase``: the sales plugin's services (its api), refusals in the object style
(``{code, message}``; the 402 ``insufficient_funds`` body as the cabinet's, its cart saved)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from pydantic import ValidationError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request
from subsvc_renewals.api import RenewalError, TariffSwitchRequest, preview_tariff_switch
from subsvc_sales.api import (
    ClassicPurchaseOptions,
    PurchasePreviewRequest,
    TariffOption,
    TariffPurchaseRequest,
    activate_trial,
    preview_purchase,
    purchase_options,
    purchase_tariff,
    submit_purchase,
    trial_info,
)
from subsvc_servers.api import Server
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import Tariff, find_tariff

from subsvc.api import HTTPError, Router, from_attributes, price_label
from subsvc_miniapp import auth, dashboard
from subsvc_miniapp.dashboard_schemas import MiniAppConnectedServer
from subsvc_miniapp.sales_mapping import refused, selection, tariff_period
from subsvc_miniapp.sales_schemas import (
    MiniAppSubscriptionPurchaseOptionsRequest,
    MiniAppSubscriptionPurchaseOptionsResponse,
    MiniAppSubscriptionPurchasePreviewRequest,
    MiniAppSubscriptionPurchasePreviewResponse,
    MiniAppSubscriptionPurchaseRequest,
    MiniAppSubscriptionPurchaseResponse,
    MiniAppSubscriptionTrialRequest,
    MiniAppSubscriptionTrialResponse,
    MiniAppTariff,
    MiniAppTariffPurchaseRequest,
    MiniAppTariffPurchaseResponse,
    MiniAppTariffsRequest,
    MiniAppTariffsResponse,
)

router = Router(area="web", tag="miniapp")
T = TypeVar("T")
REFUSED = (
    "`{code, message}`: the sales plugin's refusal (the cabinet's text; `code` its own or of the status)"
)
SOLD: dict[int, str] = {
    **auth.USER_RESPONSES,
    400: REFUSED,
    402: "`{code: insufficient_funds, message, missing_amount, ...}`: the balance is short (cart saved)",
    403: REFUSED,
    404: "`{code: tariff_not_found}`, `{code: subscription_not_found}`, or the user's refusals",
    409: REFUSED,
}
SWITCH_PERIOD_DAYS = 30  # the switch request needs a period; the switch's price does not use it
BAD_PERIOD = {"code": "invalid_period", "message": "Invalid or missing subscription period"}


async def _sold(call: Awaitable[T]) -> T:
    """The sales service's answer, its refusal in the object style."""
    try:
        return await call
    except HTTPError as error:
        raise refused(error) from None


@router.post("/miniapp/subscription/trial", public=True, responses=SOLD)
async def activate_subscription_trial_endpoint(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionTrialRequest
) -> MiniAppSubscriptionTrialResponse:
    """Take the user's one trial (the cabinet's: its terms, a paid trial charged from the
    balance). Refused: 400 `subscription_exists` / `trial_unavailable`, 402 short."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    subscription = await _sold(activate_trial(request.app, session, user.id))
    terms = await trial_info(request.app, session, user.id)
    await session.refresh(user)
    return MiniAppSubscriptionTrialResponse(
        message="Trial activated",
        subscriptionId=subscription.id,
        trialStatus=subscription.status,
        trialDurationDays=terms.duration_days,
        chargedAmountKopeks=terms.price_kopeks,
        chargedAmountLabel=price_label(terms.price_kopeks),
        balanceKopeks=user.balance_kopeks,
        balanceLabel=price_label(user.balance_kopeks),
    )


@router.post("/miniapp/subscription/purchase/options", public=True, responses=SOLD)
async def get_subscription_purchase_options_endpoint(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionPurchaseOptionsRequest
) -> MiniAppSubscriptionPurchaseOptionsResponse:
    """The cabinet's purchase options of the sales mode (`data`: classic periods, traffic,
    servers, devices and the default selection; or the tariffs)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    options = await _sold(purchase_options(request.app, session, user.id))
    current = await dashboard.current_subscription(request.app, session, user.id)
    return MiniAppSubscriptionPurchaseOptionsResponse(
        currency=options.currency if isinstance(options, ClassicPurchaseOptions) else "RUB",
        balanceKopeks=options.balance_kopeks,
        balanceLabel=options.balance_label,
        subscriptionId=current.id if current else None,
        data=options.model_dump(mode="json"),
    )


@router.post("/miniapp/subscription/purchase/preview", public=True, responses=SOLD)
async def subscription_purchase_preview_endpoint(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionPurchasePreviewRequest
) -> MiniAppSubscriptionPurchasePreviewResponse:
    """The classic selection priced for the user (the cabinet's preview: the engine's total,
    breakdown, what the balance lacks)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    wanted = PurchasePreviewRequest(selection=selection(body))
    preview = await _sold(preview_purchase(request.app, session, user.id, wanted))
    return MiniAppSubscriptionPurchasePreviewResponse(
        preview=preview.model_dump(mode="json"),
        balanceKopeks=preview.balance_kopeks,
        balanceLabel=preview.balance_label,
    )


@router.post("/miniapp/subscription/purchase", public=True, responses=SOLD)
async def subscription_purchase_endpoint(
    request: Request, session: AsyncSession, body: MiniAppSubscriptionPurchaseRequest
) -> MiniAppSubscriptionPurchaseResponse:
    """Buy the classic selection from the balance (the cabinet's purchase: debit and
    subscription in one transaction; short: 402 with the `subscription_purchase` cart saved)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    wanted = PurchasePreviewRequest(selection=selection(body))
    bought = await _sold(submit_purchase(request.app, session, user.id, wanted))
    return MiniAppSubscriptionPurchaseResponse(
        message=bought.message,
        balanceKopeks=bought.balance_kopeks,
        balanceLabel=price_label(bought.balance_kopeks),
        subscriptionId=bought.subscription.id,
    )


def _tariff(option: TariffOption) -> MiniAppTariff:
    return from_attributes(
        MiniAppTariff,
        option,
        periods=[tariff_period(period) for period in option.periods],
        daily_price_label=price_label(option.daily_price_kopeks) if option.is_daily else None,
    )


async def _servers(session: AsyncSession, tariffs: list[MiniAppTariff]) -> None:
    """Each tariff's servers (its squads, named as the servers plugin names them; unknown
    ones by their uuid)."""
    rows = (await session.exec(select(Tariff).where(col(Tariff.id).in_([t.id for t in tariffs])))).all()
    squads = {row.id: list(row.allowed_squads) for row in rows}
    wanted = {squad for listed in squads.values() for squad in listed}
    servers = (await session.exec(select(Server).where(col(Server.squad_uuid).in_(wanted)))).all()
    names = {server.squad_uuid: server.display_name for server in servers}
    for tariff in tariffs:
        tariff.servers = [
            MiniAppConnectedServer(uuid=squad, name=names.get(squad, squad))
            for squad in squads.get(tariff.id, [])
        ]


async def _switch_costs(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription: Subscription,
    tariffs: list[MiniAppTariff],
) -> None:
    """Each other tariff's switch price now (renewals' preview); one it refuses keeps none."""
    for tariff in tariffs:
        if tariff.is_current or tariff.id == subscription.tariff_id:
            continue
        wanted = TariffSwitchRequest(
            tariff_id=tariff.id, period_days=SWITCH_PERIOD_DAYS, subscription_id=subscription.id
        )
        try:
            quote = await preview_tariff_switch(app, session, user_id, wanted, subscription.id)
        except RenewalError:
            continue
        tariff.switch_cost_kopeks = quote.upgrade_cost_kopeks
        tariff.switch_cost_label = quote.upgrade_cost_label
        tariff.is_upgrade = quote.is_upgrade
        tariff.is_switch_free = quote.upgrade_cost_kopeks == 0


@router.post("/miniapp/subscription/tariffs", public=True, responses=SOLD)
async def get_tariffs_endpoint(
    request: Request, session: AsyncSession, body: MiniAppTariffsRequest
) -> MiniAppTariffsResponse:
    """The tariffs the user may buy at their prices (the cabinet's tariffs options) with their
    servers, what
    switching to each costs now (the tariff switch's preview) and the current subscription's
    tariff; in classic mode no tariffs."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    options = await _sold(purchase_options(request.app, session, user.id))
    answer = MiniAppTariffsResponse(
        sales_mode=options.sales_mode,
        balance_kopeks=options.balance_kopeks,
        balance_label=options.balance_label,
    )
    if isinstance(options, ClassicPurchaseOptions):
        return answer
    answer.tariffs = [_tariff(option) for option in options.tariffs]
    await _servers(session, answer.tariffs)
    subscription = await dashboard.current_subscription(request.app, session, user.id)
    if subscription is not None and subscription.tariff_id is not None:
        tariff = await find_tariff(session, subscription.tariff_id)
        if tariff is not None:
            answer.current_tariff = dashboard.current_tariff(tariff, subscription)
            await _switch_costs(request.app, session, user.id, subscription, answer.tariffs)
    return answer


@router.post("/miniapp/subscription/tariff/purchase", public=True, responses=SOLD)
async def purchase_tariff_endpoint(
    request: Request, session: AsyncSession, body: MiniAppTariffPurchaseRequest
) -> MiniAppTariffPurchaseResponse:
    """Buy a tariff for the period from the balance (the cabinet's tariff purchase: new,
    renewed or switched subscription; short: 402 with its cart saved)."""
    user = await auth.user_of(request.app, session, body.initData)
    assert user.id is not None
    try:
        wanted = TariffPurchaseRequest(tariff_id=body.tariffId, period_days=body.periodDays)
    except ValidationError:
        raise HTTPError(400, BAD_PERIOD) from None
    bought = await _sold(purchase_tariff(request.app, session, user.id, wanted))
    return MiniAppTariffPurchaseResponse(
        message=bought.message,
        subscription_id=bought.subscription.id,
        tariff_id=bought.tariff_id,
        tariff_name=bought.tariff_name,
        new_end_date=bought.subscription.end_date,
        balance_kopeks=bought.balance_kopeks,
        balance_label=bought.balance_label,
    )
