"""What every add-on operation starts from: the subscription the request means (one of the
user's own), and the panel account behind it."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription

from subsvc.api import HTTPError
from subsvc.panel import PanelHook, PanelUser, SubscriptionPanel

NO_SUBSCRIPTION = "No subscription found"
PANEL_USER_NOT_FOUND = "Panel user not found"
PANEL = PanelHook[SubscriptionPanel]("addons_panel")


async def subscription_of(
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None,
    *,
    missing: str = NO_SUBSCRIPTION,
    status: int = 404,
    for_update: bool = False,
) -> Subscription:
    """The user's subscription named by ``subscription_id``, else their current one;
    ``status`` ``missing`` when there is none."""
    if subscription_id is not None:
        found = await subscriptions.get(session, subscription_id, for_update=for_update)
        if found is not None and found.user_id != user_id:
            found = None
    else:
        found = await subscriptions.primary_of(session, user_id, for_update=for_update)
    if found is None:
        raise HTTPError(status, missing)
    return found


async def account_of(
    app: Starlette, session: AsyncSession, subscription: Subscription
) -> tuple[SubscriptionPanel, PanelUser]:
    """The panel and the subscription's account there: 503 without a panel, 400
    ``Panel user not found`` without an account; the panel's failures pass (502 in
    :func:`subsvc.panel.failures_as_502`)."""
    panel = await PANEL.require(app)
    assert subscription.id is not None
    account = await panel.account(session, subscription.id)
    if account is None:
        raise HTTPError(400, PANEL_USER_NOT_FOUND)
    return panel, account
