"""Account merge: fold the secondary user (who owns an identity the primary proved to control)
into the primary, in one transaction.

This module moves the plugin's own rows: external identities (where the primary has none of
that provider; else the secondary's is dropped), and forgets the link states and merge tokens
naming the secondary. Every other table is its owner's: each plugin that keeps rows of users
moves (or drops) them in its implementation of the ``cabinet_account_merging`` hook
(:mod:`subsvc_cabinet_oauth.hookspecs`), called for all of them in the merge's transaction:
billing the balance and transactions, subscriptions the subscriptions, cabinet_auth the
sessions, and so on; the users plugin's, last, moves the messenger id, e-mail, flags and
invitees and marks the secondary ``deleted``. The two user rows are locked (in id order)
before anything is read.
"""

from __future__ import annotations

from sqlalchemy import delete, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User, UserStatus

from subsvc.api import from_attributes
from subsvc.services import services
from subsvc_cabinet_oauth import errors
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.hookspecs import merge_accounts
from subsvc_cabinet_oauth.models import MergeToken, OAuthIdentity, OAuthState
from subsvc_cabinet_oauth.schemas import AccountMergedPayload, MergePreviewSubscription, MergePreviewUser
from subsvc_cabinet_oauth.service import auth_methods

ACCOUNT_MERGED = "account.merged"


def plugin_runs(app: Starlette, name: str) -> bool:
    return any(info.name == name for info in services(app).plugins.enabled)


# --- preview ---------------------------------------------------------------------------------------


async def _subscription_preview(
    app: Starlette, session: AsyncSession, user_id: int
) -> MergePreviewSubscription | None:
    """The subscription shown in the preview, from the plugin that keeps subscriptions."""
    answers = await services(app).plugins.call_all(
        "cabinet_merge_preview_subscription", app=app, session=session, user_id=user_id
    )
    return MergePreviewSubscription.model_validate(answers[0]) if answers else None


async def preview_user(app: Starlette, session: AsyncSession, user: User) -> MergePreviewUser:
    assert user.id is not None
    return from_attributes(
        MergePreviewUser,
        user,
        auth_methods=await auth_methods(session, user),
        subscription=await _subscription_preview(app, session, user.id),
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
        delete(OAuthIdentity).where(
            col(OAuthIdentity.user_id) == secondary_id, col(OAuthIdentity.provider).in_(taken)
        )
    )
    await session.exec(
        update(OAuthIdentity)
        .where(col(OAuthIdentity.user_id) == secondary_id)
        .values(user_id=primary_id)
        .execution_options(synchronize_session=False)
    )


async def _forget_pending(session: AsyncSession, secondary_id: int) -> None:
    """Other merges and link states that name the secondary can no longer be completed."""
    await session.exec(
        delete(MergeToken).where(
            or_(
                col(MergeToken.primary_user_id) == secondary_id,
                col(MergeToken.secondary_user_id) == secondary_id,
            )
        )
    )
    await session.exec(delete(OAuthState).where(col(OAuthState.user_id) == secondary_id))


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

    await _move_identities(session, primary_id, secondary_id)
    await _forget_pending(session, secondary_id)
    report = await merge_accounts(app, session, primary_id, secondary_id, keep_from)
    await session.refresh(primary)
    services(app).events.publish(
        session,
        ACCOUNT_MERGED,
        AccountMergedPayload(
            primary_user_id=primary_id,
            secondary_user_id=secondary_id,
            provider=token.provider,
            moved_balance_kopeks=report.get("moved_balance_kopeks", 0),
            kept_subscription_from=keep_from,
            moved_subscription_ids=report.get("moved_subscription_ids", []),
            disabled_subscription_ids=report.get("disabled_subscription_ids", []),
        ),
    )
    return primary
