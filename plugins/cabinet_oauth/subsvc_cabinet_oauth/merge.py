"""Account merge: fold the secondary user (who owns an identity the primary proved to control)
into the primary, in one transaction.

What moves: external identities (where the primary has none of that provider), the messenger
id and the e-mail with its password (where the primary has none), the balance (through
billing's conditional updates when billing runs), the "has paid" / "has topped up" flags,
subscriptions (when both have a live one, the one not kept is disabled first), transactions,
referrals; other plugins move their rows through the ``cabinet_account_merging`` hook. Both
users' refresh tokens are revoked; the secondary is marked ``deleted`` with its unique fields
cleared. The two user rows are locked (in id order) before anything is read.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from sqlalchemy import delete, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet_auth.sessions import revoke_all
from subsvc_users.counts import count_cache
from subsvc_users.models import User
from subsvc_users.schemas import UserStatus

from subsvc.db import utcnow
from subsvc_cabinet_oauth import errors
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.models import MergeToken, OAuthIdentity, OAuthState
from subsvc_cabinet_oauth.schemas import AccountMergedPayload, MergePreviewSubscription, MergePreviewUser
from subsvc_cabinet_oauth.service import auth_methods

ACCOUNT_MERGED = "account.merged"


def plugin_runs(app: Starlette, name: str) -> bool:
    return any(info.name == name for info in app.state.plugins.enabled)


# --- preview ---------------------------------------------------------------------------------------


async def _subscription_preview(
    app: Starlette, session: AsyncSession, user_id: int
) -> MergePreviewSubscription | None:
    if not plugin_runs(app, "subscriptions"):
        return None
    from subsvc_subscriptions import service as subscriptions

    current = await subscriptions.primary_of(session, user_id)
    if current is None:
        return None
    return MergePreviewSubscription(
        status=subscriptions.actual_status(current.status, current.end_date, utcnow()),
        is_trial=current.is_trial,
        end_date=current.end_date,
        traffic_limit_gb=current.traffic_limit_gb,
        traffic_used_gb=current.traffic_used_gb,
        device_limit=current.device_limit,
        tariff_name=None,
        autopay_enabled=current.autopay_enabled,
    )


async def preview_user(app: Starlette, session: AsyncSession, user: User) -> MergePreviewUser:
    assert user.id is not None
    return MergePreviewUser(
        id=user.id,
        username=user.username,
        first_name=user.first_name,
        email=user.email,
        auth_methods=await auth_methods(session, user),
        balance_kopeks=user.balance_kopeks,
        subscription=await _subscription_preview(app, session, user.id),
        created_at=user.created_at,
    )


async def preview(
    app: Starlette, session: AsyncSession, token: MergeToken
) -> tuple[MergePreviewUser, MergePreviewUser]:
    """Both accounts as they are now; 404 when either is gone."""
    primary = await session.get(User, token.primary_user_id)
    secondary = await session.get(User, token.secondary_user_id)
    if primary is None or secondary is None:
        raise FlowError(404, errors.MERGE_USERS_MISSING)
    return await preview_user(app, session, primary), await preview_user(app, session, secondary)


# --- the merge -------------------------------------------------------------------------------------


@dataclass
class _Moves:
    balance_kopeks: int = 0
    moved_subscriptions: list[int] = field(default_factory=list)
    disabled_subscriptions: list[int] = field(default_factory=list)


async def _lock_users(session: AsyncSession, first: int, second: int) -> dict[int, User]:
    query = (
        select(User)
        .where(col(User.id).in_([first, second]))
        .order_by(col(User.id))
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {user.id: user for user in (await session.exec(query)).all() if user.id is not None}


async def _move_identities(session: AsyncSession, primary_id: int, secondary_id: int) -> None:
    taken = select(col(OAuthIdentity.provider)).where(col(OAuthIdentity.user_id) == primary_id)
    await session.exec(
        delete(OAuthIdentity).where(  # type: ignore[call-overload]
            col(OAuthIdentity.user_id) == secondary_id, col(OAuthIdentity.provider).in_(taken)
        )
    )
    await session.exec(
        update(OAuthIdentity)  # type: ignore[call-overload]
        .where(col(OAuthIdentity.user_id) == secondary_id)
        .values(user_id=primary_id)
        .execution_options(synchronize_session=False)
    )


async def _move_unique_fields(session: AsyncSession, primary: User, secondary: User) -> None:
    """The messenger id and the e-mail (with its password and verification) go to a primary
    that has none; each is cleared on the secondary and flushed before it is set again."""
    messenger_id = secondary.messenger_id if primary.messenger_id is None else None
    email = None
    if not primary.email and secondary.email:
        email = (
            secondary.email,
            secondary.email_verified,
            secondary.email_verified_at,
            secondary.email_verification_source,
            secondary.password_hash,
        )
    _retire(secondary)
    await session.flush()
    if messenger_id is not None:
        primary.messenger_id = messenger_id
    if email is not None:
        (
            primary.email,
            primary.email_verified,
            primary.email_verified_at,
            primary.email_verification_source,
            primary.password_hash,
        ) = email


def _retire(user: User) -> None:
    user.status = UserStatus.DELETED
    user.messenger_id = None
    user.email = None
    user.email_verified = False
    user.email_verified_at = None
    user.email_verification_source = None
    user.password_hash = None
    user.referral_code = None
    user.referred_by_id = None
    user.updated_at = utcnow()


async def _move_balance(app: Starlette, session: AsyncSession, primary: User, secondary: User) -> int:
    """Move the whole balance (read under the row lock) in conditional updates."""
    amount = secondary.balance_kopeks
    if amount == 0:
        return 0
    assert primary.id is not None and secondary.id is not None
    if plugin_runs(app, "billing"):
        from subsvc_billing.service import change_balance

        await change_balance(session, secondary.id, -amount)
        await change_balance(session, primary.id, amount)
    else:
        for user_id, delta in ((secondary.id, -amount), (primary.id, amount)):
            await session.exec(
                update(User)  # type: ignore[call-overload]
                .where(col(User.id) == user_id, col(User.balance_kopeks) + delta >= 0)
                .values(balance_kopeks=col(User.balance_kopeks) + delta, updated_at=utcnow())
                .execution_options(synchronize_session=False)
            )
    await session.refresh(primary)
    await session.refresh(secondary)
    return amount


async def _move_subscriptions(
    app: Starlette, session: AsyncSession, primary_id: int, secondary_id: int, keep_from: int, moves: _Moves
) -> None:
    if not plugin_runs(app, "subscriptions"):
        return
    from subsvc_subscriptions import service as subscriptions
    from subsvc_subscriptions.models import Subscription

    now = utcnow()
    mine = await subscriptions.primary_of(session, primary_id, for_update=True)
    theirs = await subscriptions.primary_of(session, secondary_id, for_update=True)

    def live(item: Subscription | None) -> bool:
        return (
            item is not None
            and subscriptions.actual_status(item.status, item.end_date, now) in subscriptions.LIVE
        )

    if live(mine) and live(theirs):
        dropped = theirs if keep_from == primary_id else mine
        assert dropped is not None and dropped.id is not None
        await subscriptions.disable(session, app.state.events, dropped)
        moves.disabled_subscriptions.append(dropped.id)
    query = (
        select(col(Subscription.id))
        .where(col(Subscription.user_id) == secondary_id)
        .order_by(col(Subscription.id))
    )
    moves.moved_subscriptions = [item for item in (await session.exec(query)).all() if item is not None]
    await session.exec(
        update(Subscription)  # type: ignore[call-overload]
        .where(col(Subscription.user_id) == secondary_id)
        .values(user_id=primary_id, updated_at=now)
        .execution_options(synchronize_session=False)
    )


async def _move_transactions(
    app: Starlette, session: AsyncSession, primary_id: int, secondary_id: int
) -> None:
    if not plugin_runs(app, "billing"):
        return
    from subsvc_billing.models import Transaction

    await session.exec(
        update(Transaction)  # type: ignore[call-overload]
        .where(col(Transaction.user_id) == secondary_id)
        .values(user_id=primary_id)
        .execution_options(synchronize_session=False)
    )


async def _move_referrals(session: AsyncSession, primary: User, secondary: User, inviter: int | None) -> None:
    """The secondary's invitees become the primary's; the primary keeps its own inviter, or
    takes the secondary's, and is never its own."""
    assert primary.id is not None and secondary.id is not None
    await session.exec(
        update(User)  # type: ignore[call-overload]
        .where(col(User.referred_by_id) == secondary.id, col(User.id) != primary.id)
        .values(referred_by_id=primary.id)
        .execution_options(synchronize_session=False)
    )
    if primary.referred_by_id == secondary.id:
        primary.referred_by_id = None
    if primary.referred_by_id is None and inviter not in (None, primary.id, secondary.id):
        primary.referred_by_id = inviter


async def _forget_pending(session: AsyncSession, secondary_id: int) -> None:
    """Other merges and link states that name the secondary can no longer be completed."""
    await session.exec(
        delete(MergeToken).where(  # type: ignore[call-overload]
            or_(
                col(MergeToken.primary_user_id) == secondary_id,
                col(MergeToken.secondary_user_id) == secondary_id,
            )
        )
    )
    await session.exec(delete(OAuthState).where(col(OAuthState.user_id) == secondary_id))  # type: ignore[call-overload]


async def merge(app: Starlette, session: AsyncSession, token: MergeToken, keep_from: int) -> User:
    """Fold ``token``'s secondary user into its primary and return the primary (flushed).

    400 for a ``keep_from`` that is neither user or when either user is gone or deleted, 403
    when the primary is blocked; the caller's rollback then undoes everything, the consumed
    token included."""
    primary_id, secondary_id = token.primary_user_id, token.secondary_user_id
    if keep_from not in (primary_id, secondary_id):
        raise FlowError(400, errors.MERGE_KEEP_INVALID)
    users = await _lock_users(session, primary_id, secondary_id)
    primary, secondary = users.get(primary_id), users.get(secondary_id)
    if primary is None or secondary is None or primary_id == secondary_id:
        raise FlowError(400, errors.MERGE_IMPOSSIBLE)
    if UserStatus.DELETED in (primary.status, secondary.status):
        raise FlowError(400, errors.MERGE_IMPOSSIBLE)
    if primary.status != UserStatus.ACTIVE:
        raise FlowError(403, errors.USER_INACTIVE)

    moves = _Moves()
    paid = primary.has_had_paid_subscription or secondary.has_had_paid_subscription
    topped_up = primary.has_made_first_topup or secondary.has_made_first_topup
    inviter = secondary.referred_by_id
    await _move_identities(session, primary_id, secondary_id)
    moves.balance_kopeks = await _move_balance(app, session, primary, secondary)
    await _move_unique_fields(session, primary, secondary)
    await _move_subscriptions(app, session, primary_id, secondary_id, keep_from, moves)
    await _move_transactions(app, session, primary_id, secondary_id)
    await _move_referrals(session, primary, secondary, inviter)
    await revoke_all(session, primary_id)
    await revoke_all(session, secondary_id)
    await _forget_pending(session, secondary_id)
    for result in app.state.plugins.hook.cabinet_account_merging(
        app=app, session=session, primary_user_id=primary_id, secondary_user_id=secondary_id
    ):
        if inspect.isawaitable(result):
            await result
    primary.has_had_paid_subscription = paid
    primary.has_made_first_topup = topped_up
    primary.updated_at = utcnow()
    session.add(primary)
    await session.flush()
    app.state.events.publish(
        session,
        ACCOUNT_MERGED,
        AccountMergedPayload(
            primary_user_id=primary_id,
            secondary_user_id=secondary_id,
            provider=token.provider,
            moved_balance_kopeks=moves.balance_kopeks,
            kept_subscription_from=keep_from,
            moved_subscription_ids=moves.moved_subscriptions,
            disabled_subscription_ids=moves.disabled_subscriptions,
        ),
    )
    count_cache(app).invalidate_on_commit(session)
    return primary
