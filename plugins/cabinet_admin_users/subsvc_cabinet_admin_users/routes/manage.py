"""Changing users: balance, status, block, restrictions, promo group, referral commission,
disable, the resets, and deletion."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_billing import api as billing
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User, UserStatus

from subsvc.api import HTTPError, Query, from_attributes
from subsvc.auth.principal import Principal
from subsvc.panel import NOT_CONFIGURED, PanelError, PanelUser, failure_text
from subsvc_cabinet_admin_users import changes, sync
from subsvc_cabinet_admin_users.lookup import user_subscriptions
from subsvc_cabinet_admin_users.panel import GATEWAY, PanelGateway
from subsvc_cabinet_admin_users.routes.common import (
    BALANCE,
    BLOCK,
    DELETE,
    EDIT,
    PROMO_GROUP,
    REFERRAL,
    SUBSCRIPTION,
    get_user,
    new_router,
)
from subsvc_cabinet_admin_users.schemas import (
    DeleteUserRequest,
    DeleteUserResponse,
    DisableUserRequest,
    DisableUserResponse,
    FullDeleteUserRequest,
    FullDeleteUserResponse,
    ResetSubscriptionRequest,
    ResetSubscriptionResponse,
    ResetTrialRequest,
    ResetTrialResponse,
    UpdateBalanceRequest,
    UpdateBalanceResponse,
    UpdatePromoGroupRequest,
    UpdatePromoGroupResponse,
    UpdateReferralCommissionRequest,
    UpdateReferralCommissionResponse,
    UpdateRestrictionsRequest,
    UpdateRestrictionsResponse,
    UpdateUserStatusRequest,
    UpdateUserStatusResponse,
)

router = new_router()

USER_IS_DELETED = "User is deleted; restore it with the status endpoint first"
NOT_FOUND = {404: "User not found"}
IN_USE = {409: "Other records still point at the user", **NOT_FOUND}


async def _panel_account(
    request: Request, session: AsyncSession, user: User
) -> tuple[PanelGateway | None, PanelUser | None, str | None]:
    """The panel gateway and the user's panel account: ``(gateway, account, error)``. Without
    a panel the error says so; the ``subscription.changed`` / ``user.deleted`` events still
    tell the panel integration once one is installed."""
    gateway = await GATEWAY.find(request.app)
    if gateway is None:
        return None, None, NOT_CONFIGURED
    try:
        return gateway, await sync.find_account(gateway, session, user), None
    except PanelError as exc:
        return gateway, None, failure_text(exc)


async def _with_subscriptions(session: AsyncSession, user_id: int) -> tuple[User, list[Subscription]]:
    """The user (404) and every subscription of the user, both locked."""
    user = await get_user(session, user_id, for_update=True)
    assert user.id is not None
    return user, await user_subscriptions(session, user.id, for_update=True)


async def _panel_call(call: Awaitable[bool]) -> tuple[bool, str | None]:
    """Run one panel operation: ``(done, error)``."""
    try:
        return await call, None
    except PanelError as exc:
        return False, failure_text(exc)


async def _disable_in_panel(request: Request, session: AsyncSession, user: User) -> tuple[bool, str | None]:
    """Disable the user's panel account: ``(done, error)``; no account is not an error."""
    gateway, account, error = await _panel_account(request, session, user)
    if gateway is None or account is None:
        return False, error
    return await _panel_call(gateway.disable_user(account.uuid))


async def _set_status(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user: User,
    status: UserStatus,
    reason: str | None,
) -> str:
    """Give the user ``status`` as this administrator (``user.status_changed``); the old status."""
    return await changes.set_status(request.app, session, user, status, reason=reason, actor=principal.id)


async def _set_blocked(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    status: UserStatus,
    reason: str | None,
    messages: tuple[str, str],
) -> UpdateUserStatusResponse:
    """Block or unblock a user that is not deleted; ``messages``: the answer when the user
    was blocked before, and when not."""
    user = await get_user(session, user_id, for_update=True)
    if user.status == UserStatus.DELETED:
        raise HTTPError(400, USER_IS_DELETED)
    old = await _set_status(request, session, principal, user, status, reason)
    was_blocked, was_not = messages
    message = was_blocked if old == UserStatus.BLOCKED else was_not
    return UpdateUserStatusResponse(success=True, old_status=old, new_status=user.status, message=message)


@router.post(
    "/{user_id}/balance",
    permission=BALANCE,
    responses={400: "Amount must be non-zero, or Insufficient balance", **NOT_FOUND},
)
async def update_user_balance(
    request: Request, session: AsyncSession, user_id: int, payload: UpdateBalanceRequest
) -> UpdateBalanceResponse:
    """Credit (positive `amount_kopeks`) or debit (negative) the balance, atomically; a debit
    larger than the balance is 400 `Insufficient balance` and changes nothing. With
    `create_transaction` a manual deposit or withdrawal is recorded and its events published."""
    user = await get_user(session, user_id)
    if payload.amount_kopeks == 0:
        raise HTTPError(400, "Amount must be non-zero")
    try:
        change = await billing.adjust_balance(
            session,
            changes.events(request.app),
            user,
            payload.amount_kopeks,
            description=payload.description,
            create_transaction=payload.create_transaction,
        )
    except billing.InsufficientBalance:
        raise HTTPError(400, "Insufficient balance") from None
    old, new = change.old_balance_kopeks, change.new_balance_kopeks
    return UpdateBalanceResponse(
        success=True,
        old_balance_kopeks=old,
        new_balance_kopeks=new,
        message=f"Balance updated: {old / 100:.2f}₽ -> {new / 100:.2f}₽",
    )


@router.post("/{user_id}/status", permission=EDIT, responses=NOT_FOUND)
async def update_user_status(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    payload: UpdateUserStatusRequest,
) -> UpdateUserStatusResponse:
    """Set the status (active, blocked, deleted); publishes `user.status_changed`."""
    user = await get_user(session, user_id, for_update=True)
    old = await _set_status(request, session, principal, user, payload.status, payload.reason)
    new = payload.status.value
    message = "Status unchanged" if old == new else f"Status changed from {old} to {new}"
    return UpdateUserStatusResponse(success=True, old_status=old, new_status=new, message=message)


@router.post("/{user_id}/block", permission=BLOCK, responses={400: USER_IS_DELETED, **NOT_FOUND})
async def block_user(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    reason: Annotated[str | None, Query(max_length=500)] = None,
) -> UpdateUserStatusResponse:
    """Block a user (status `blocked`); publishes `user.status_changed`, on which the panel
    integration disables the panel account."""
    messages = ("User is already blocked", "User blocked")
    return await _set_blocked(request, session, principal, user_id, UserStatus.BLOCKED, reason, messages)


@router.post("/{user_id}/unblock", permission=BLOCK, responses={400: USER_IS_DELETED, **NOT_FOUND})
async def unblock_user(
    request: Request, session: AsyncSession, principal: Principal, user_id: int
) -> UpdateUserStatusResponse:
    """Unblock a user (status `active`); publishes `user.status_changed`."""
    messages = ("User unblocked", "User is not blocked")
    return await _set_blocked(request, session, principal, user_id, UserStatus.ACTIVE, None, messages)


@router.post("/{user_id}/restrictions", permission=EDIT, responses=NOT_FOUND)
async def update_user_restrictions(
    session: AsyncSession, user_id: int, payload: UpdateRestrictionsRequest
) -> UpdateRestrictionsResponse:
    """Block or allow the user's top-ups and subscription purchases (null: unchanged); an
    empty `restriction_reason` clears the reason."""
    user = await get_user(session, user_id, for_update=True)
    assert user.id is not None
    row = await changes.set_restrictions(session, user.id, payload)
    return from_attributes(UpdateRestrictionsResponse, row, success=True, message="Restrictions updated")


@router.post(
    "/{user_id}/promo-group",
    permission=PROMO_GROUP,
    responses={404: "User not found, or Promo group not found"},
)
async def update_user_promo_group(
    request: Request, session: AsyncSession, user_id: int, payload: UpdatePromoGroupRequest
) -> UpdatePromoGroupResponse:
    """Move the user to a promo group; `null` moves the user to the default group (every user
    belongs to one)."""
    user = await get_user(session, user_id, for_update=True)
    old = user.promo_group_id
    try:
        group = await changes.set_promo_group(request.app, session, user, payload.promo_group_id)
    except changes.PromoGroupMissing:
        raise HTTPError(404, "Promo group not found") from None
    return UpdatePromoGroupResponse(
        success=True,
        old_promo_group_id=old,
        new_promo_group_id=group.id,
        promo_group_name=group.name,
        message="Promo group updated",
    )


@router.post(
    "/{user_id}/referral-commission",
    permission=REFERRAL,
    responses={400: "Admin cannot modify their own referral commission", **NOT_FOUND},
)
async def update_user_referral_commission(
    session: AsyncSession, principal: Principal, user_id: int, payload: UpdateReferralCommissionRequest
) -> UpdateReferralCommissionResponse:
    """Set the user's own referral commission percentage (0..100; `null` for the default)."""
    user = await get_user(session, user_id, for_update=True)
    assert user.id is not None
    if user.id == principal.id:
        raise HTTPError(400, "Admin cannot modify their own referral commission")
    old = await changes.set_commission(session, user.id, payload.commission_percent)
    return UpdateReferralCommissionResponse(
        success=True,
        old_commission_percent=old,
        new_commission_percent=payload.commission_percent,
        message="Referral commission updated",
    )


@router.post("/{user_id}/disable", permission=BLOCK, responses=NOT_FOUND)
async def disable_user(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    payload: DisableUserRequest = DisableUserRequest(),
) -> DisableUserResponse:
    """Disable every subscription of the user, disable the panel account and block the user."""
    user, rows = await _with_subscriptions(session, user_id)
    disabled = await changes.disable_subscriptions(request.app, session, rows)
    done, error = await _disable_in_panel(request, session, user)
    await _set_status(request, session, principal, user, UserStatus.BLOCKED, payload.reason)
    return DisableUserResponse(
        success=True,
        message="User disabled successfully",
        subscription_deactivated=bool(disabled),
        panel_deactivated=done,
        user_blocked=True,
        panel_error=error,
    )


@router.post("/{user_id}/reset-trial", permission=SUBSCRIPTION, responses=NOT_FOUND)
async def reset_user_trial(
    request: Request, session: AsyncSession, user_id: int, payload: ResetTrialRequest = ResetTrialRequest()
) -> ResetTrialResponse:
    """Delete the user's trial subscriptions (paid ones stay), so the user can take a trial
    again; each is disabled first, which tells the panel integration."""
    _, rows = await _with_subscriptions(session, user_id)
    trials = [row for row in rows if row.is_trial]
    deleted = await changes.remove_subscriptions(request.app, session, trials, deactivate=True)
    return ResetTrialResponse(
        success=True,
        message="Trial reset successfully. User can now activate a new trial.",
        subscription_deleted=deleted > 0,
        has_used_trial_reset=True,
    )


@router.post("/{user_id}/reset-subscription", permission=SUBSCRIPTION, responses=NOT_FOUND)
async def reset_user_subscription(
    request: Request,
    session: AsyncSession,
    user_id: int,
    payload: ResetSubscriptionRequest = ResetSubscriptionRequest(),
) -> ResetSubscriptionResponse:
    """Delete every subscription of the user; with `deactivate_in_panel` (default) each is
    disabled first and the panel account is disabled."""
    user, rows = await _with_subscriptions(session, user_id)
    if not rows:
        return ResetSubscriptionResponse(success=True, message="User has no subscription to reset")
    done, error = False, None
    if payload.deactivate_in_panel:
        done, error = await _disable_in_panel(request, session, user)
    await changes.remove_subscriptions(request.app, session, rows, deactivate=payload.deactivate_in_panel)
    return ResetSubscriptionResponse(
        success=True,
        message="Subscription reset successfully",
        subscription_deleted=True,
        panel_deactivated=done,
        panel_error=error,
    )


@router.delete("/{user_id}", permission=DELETE, responses=IN_USE)
async def delete_user(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    payload: DeleteUserRequest = DeleteUserRequest(),
) -> DeleteUserResponse:
    """`soft_delete` (default): status `deleted`. Otherwise the row is removed with its
    subscriptions and transactions; publishes `user.status_changed` or `user.deleted`."""
    user = await get_user(session, user_id, for_update=True)
    if payload.soft_delete:
        await _set_status(request, session, principal, user, UserStatus.DELETED, payload.reason)
        return DeleteUserResponse(success=True, message="User soft deleted successfully")
    await _hard_delete(request, session, user, principal, delete_from_panel=False, reason=payload.reason)
    return DeleteUserResponse(success=True, message="User permanently deleted successfully")


@router.delete("/{user_id}/full", permission=DELETE, responses=IN_USE)
async def full_delete_user(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    user_id: int,
    payload: FullDeleteUserRequest = FullDeleteUserRequest(),
) -> FullDeleteUserResponse:
    """Remove the user from our database (with subscriptions and transactions) and, with
    `delete_from_panel` (default), the panel account."""
    user = await get_user(session, user_id, for_update=True)
    gateway, account, error = None, None, None
    if payload.delete_from_panel:  # found before the row goes: the link to it goes too
        gateway, account, error = await _panel_account(request, session, user)
    await _hard_delete(
        request, session, user, principal, delete_from_panel=payload.delete_from_panel, reason=payload.reason
    )
    from_panel = False
    if gateway is not None and account is not None:
        from_panel, error = await _panel_call(gateway.delete_user(account.uuid))
    message = "User fully deleted from bot and panel" if from_panel else "User deleted from bot"
    return FullDeleteUserResponse(
        success=True, message=message, deleted_from_bot=True, deleted_from_panel=from_panel, panel_error=error
    )


async def _hard_delete(
    request: Request,
    session: AsyncSession,
    user: User,
    principal: Principal,
    *,
    delete_from_panel: bool,
    reason: str | None,
) -> None:
    try:
        await changes.delete_user(
            request.app, session, user, delete_from_panel=delete_from_panel, reason=reason, actor=principal.id
        )
    except changes.UserInUse:
        raise HTTPError(409, "User cannot be deleted: other records still point at it") from None
