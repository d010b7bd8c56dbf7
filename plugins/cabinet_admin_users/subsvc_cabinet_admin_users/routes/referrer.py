"""A user's referrer and referrals: assign or remove the referrer, unbind one referral
(permission ``users:referral``). The link is the users table's ``referred_by_id``, changed
through the users plugin's :func:`~subsvc_users.api.set_referrer`."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users import api as users

from subsvc.api import HTTPError
from subsvc_cabinet_admin_users.lookup import find_user
from subsvc_cabinet_admin_users.routes.common import REFERRAL, USER_NOT_FOUND, get_user, new_router
from subsvc_cabinet_admin_users.schemas import (
    AssignReferrerRequest,
    AssignReferrerResponse,
    RemoveReferralResponse,
    RemoveReferrerResponse,
)

router = new_router()

REFERRER_NOT_FOUND = "Referrer not found"
NOT_A_REFERRAL = "This user is not a referral of the given user"


@router.post(
    "/{user_id}/assign-referrer",
    permission=REFERRAL,
    responses={
        400: f"{users.REFERRER_IS_SELF}; {users.REFERRER_CYCLE}",
        404: f"{USER_NOT_FOUND}; {REFERRER_NOT_FOUND}",
    },
)
async def assign_user_referrer(
    request: Request, session: AsyncSession, user_id: int, payload: AssignReferrerRequest
) -> AssignReferrerResponse:
    """Make `referrer_id` (an internal id) the user's referrer, replacing any other. No bonus
    is paid now: referral rewards follow the user's next top-ups. A user cannot refer
    themselves, nor be referred by someone they referred (directly or through others)."""
    user = await get_user(session, user_id, for_update=True)
    referrer = await find_user(session, payload.referrer_id)
    if referrer is None:
        raise HTTPError(404, REFERRER_NOT_FOUND)
    try:
        old = await users.set_referrer(request.app, session, user, referrer)
    except users.UserRuleError as exc:
        raise HTTPError(400, str(exc)) from None
    message = "Referrer unchanged" if old == referrer.id else f"Referrer set to user {referrer.id}"
    return AssignReferrerResponse(
        success=True, old_referrer_id=old, new_referrer_id=referrer.id, message=message
    )


@router.delete("/{user_id}/referrer", permission=REFERRAL, responses={404: USER_NOT_FOUND})
async def remove_user_referrer(
    request: Request, session: AsyncSession, user_id: int
) -> RemoveReferrerResponse:
    """The user has no referrer any more (a user without one answers success too)."""
    user = await get_user(session, user_id, for_update=True)
    old = await users.set_referrer(request.app, session, user, None)
    message = "Referrer removed" if old is not None else "User has no referrer"
    return RemoveReferrerResponse(success=True, old_referrer_id=old, message=message)


@router.delete(
    "/{user_id}/referrals/{referral_user_id}",
    permission=REFERRAL,
    responses={404: f"{USER_NOT_FOUND}; {NOT_A_REFERRAL}"},
)
async def remove_user_referral(
    request: Request, session: AsyncSession, user_id: int, referral_user_id: int
) -> RemoveReferralResponse:
    """Unbind one of the users this user referred (that user then has no referrer)."""
    user = await get_user(session, user_id)
    referral = await get_user(session, referral_user_id, for_update=True)
    if referral.referred_by_id != user.id:
        raise HTTPError(404, NOT_A_REFERRAL)
    await users.set_referrer(request.app, session, referral, None)
    assert referral.id is not None
    return RemoveReferralResponse(
        success=True, removed_user_id=referral.id, message=f"User {referral.id} is no longer a referral"
    )
