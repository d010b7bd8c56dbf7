"""One of a user's subscriptions by its id: delete it, cancel its provider auto-renewal, and
find the subscription (and user) a panel identifier names."""

from __future__ import annotations

from typing import Annotated

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_subscriptions.api import Subscription, SubscriptionStatus

from subsvc.api import HTTPError, Path, Query
from subsvc.db import utcnow
from subsvc_cabinet_admin_users import changes
from subsvc_cabinet_admin_users.lookup import owned_subscription
from subsvc_cabinet_admin_users.routes.common import READ, SUBSCRIPTION, USER_NOT_FOUND, get_user, new_router
from subsvc_cabinet_admin_users.schemas import (
    CancelRecurringResponse,
    DeleteUserSubscriptionResponse,
    UserByPanelResponse,
)

router = new_router()

SUBSCRIPTION_NOT_FOUND = "Subscription not found"
ACTIVE_PAID = "Active paid subscription: pass force=true to delete it"
NOT_FOUND_IN_PANEL = "No subscription has this panel identifier"
NO_AUTO_RENEWAL = "No active SBP auto-renewal for this subscription"


async def _owned(
    session: AsyncSession, user_id: int, sub_id: int, *, for_update: bool = False
) -> Subscription:
    """The user (404) and the subscription of theirs with this id (404 otherwise)."""
    user = await get_user(session, user_id, for_update=for_update)
    assert user.id is not None
    subscription = await owned_subscription(session, user.id, sub_id, for_update=for_update)
    if subscription is None:
        raise HTTPError(404, SUBSCRIPTION_NOT_FOUND)
    return subscription


@router.delete(
    "/{user_id}/subscriptions/{sub_id}",
    permission=SUBSCRIPTION,
    responses={400: ACTIVE_PAID, 404: f"{USER_NOT_FOUND}; {SUBSCRIPTION_NOT_FOUND}"},
)
async def delete_user_subscription(
    request: Request,
    session: AsyncSession,
    user_id: int,
    sub_id: int,
    force: Annotated[bool, Query(description="Allow deleting an active paid subscription")] = False,
) -> DeleteUserSubscriptionResponse:
    """Delete one of the user's subscriptions for good (its traffic purchases and device
    names go with it). It is disabled first, which queues the panel change through the
    panel sync. An active paid subscription needs `force=true`."""
    subscription = await _owned(session, user_id, sub_id, for_update=True)
    live = subscription.status in (SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIAL)
    if live and not subscription.is_trial and subscription.end_date > utcnow() and not force:
        raise HTTPError(400, ACTIVE_PAID)
    assert subscription.id is not None
    removed = subscription.id
    await changes.remove_subscriptions(request.app, session, [subscription], deactivate=True)
    return DeleteUserSubscriptionResponse(
        success=True, subscription_id=removed, message=f"Subscription {removed} deleted"
    )


@router.post(
    "/{user_id}/subscriptions/{sub_id}/cancel-sbp-recurring",
    permission=SUBSCRIPTION,
    responses={404: f"{USER_NOT_FOUND}; {SUBSCRIPTION_NOT_FOUND}"},
)
async def cancel_user_sbp_recurring(
    session: AsyncSession, user_id: int, sub_id: int
) -> CancelRecurringResponse:
    """Cancel the subscription's provider SBP auto-renewal. No provider sets one up here, so
    there is never one to stop: like the reference with no active record, a no-op that
    succeeds (`cancelled: false`)."""
    await _owned(session, user_id, sub_id)
    return CancelRecurringResponse(success=True, cancelled=False, message=NO_AUTO_RENEWAL)


@router.get("/by-panel/{panel_identifier}", permission=READ, responses={404: NOT_FOUND_IN_PANEL})
async def get_user_by_panel(
    session: AsyncSession, panel_identifier: Annotated[str, Path(min_length=1, max_length=255)]
) -> UserByPanelResponse:
    """The subscription (and its user) a panel identifier names, exactly: the subscription's
    short id (the suffix of its panel account name). The panel integration here names
    accounts by uuid and records no numeric panel id, so numbers match nothing and
    `matched_panel_id` is null."""
    query = select(Subscription).where(col(Subscription.short_id) == panel_identifier.strip())
    found = (await session.exec(query)).first()
    if found is None or found.id is None:
        raise HTTPError(404, NOT_FOUND_IN_PANEL)
    return UserByPanelResponse(user_id=found.user_id, subscription_id=found.id, matched_panel_id=None)
