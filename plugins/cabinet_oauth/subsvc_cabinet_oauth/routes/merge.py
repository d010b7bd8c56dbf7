"""Cabinet Account Merge: preview and execute the merge a linking conflict offered.

Public, as the reference: the merge token is the credential. It is handed only to a user who
proved control of both accounts, is 32 random bytes stored as SHA-256, single use and
short-lived (`OAUTH_MERGE_TOKEN_TTL_SECONDS`), and the endpoints are rate limited.
"""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_cabinet_auth.api import CabinetUserResponse, issue_session

from subsvc.api import Path, Router
from subsvc.ratelimit import RATE_LIMITED, rate_limit
from subsvc_cabinet_oauth import errors, merge, tokens
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.schemas import MergePreviewResponse, MergeRequest, MergeResponse

router = Router(area="cabinet", tag="Cabinet Account Merge", prefix="/cabinet/auth/merge")

MergeTokenPath = Annotated[str, Path(min_length=32, max_length=64)]


@router.get(
    "/{merge_token}",
    public=True,
    responses={404: "Merge token is invalid or expired; One or both users not found", **RATE_LIMITED},
)
async def get_merge_preview_endpoint(
    request: Request, session: AsyncSession, merge_token: MergeTokenPath
) -> MergePreviewResponse:
    """Preview the result of merging two accounts before confirming (does not use the token)."""
    await rate_limit(request, "merge_preview", "15/minute")
    token = await tokens.find_merge_token(session, merge_token)
    if token is None:
        raise FlowError(404, errors.MERGE_NOT_FOUND)
    primary, secondary = await merge.preview(request.app, session, token)
    return MergePreviewResponse(
        primary=primary, secondary=secondary, expires_in_seconds=tokens.seconds_left(token.expires_at)
    )


@router.post(
    "/{merge_token}",
    public=True,
    responses={
        400: "keep_subscription_from is not one of the two users; the accounts were merged or deleted",
        403: "User account is not active",
        404: "Merge token is invalid, expired, or already consumed",
        **RATE_LIMITED,
    },
)
async def execute_merge_endpoint(
    request: Request, session: AsyncSession, merge_token: MergeTokenPath, body: MergeRequest
) -> MergeResponse:
    """Execute account merge. Consumes the merge token (one-time use).

    Everything happens in one transaction: a refused or failed merge changes nothing and
    leaves the token usable. Answers fresh tokens of the primary user (both users' earlier
    refresh tokens are revoked).
    """
    await rate_limit(request, "merge_execute", "5/minute")
    token = await tokens.consume_merge_token(session, merge_token)
    if token is None:
        raise FlowError(404, errors.MERGE_CONSUMED)
    user = await merge.merge(request.app, session, token, body.keep_subscription_from)
    auth = await issue_session(request, session, user, device_info="merge")
    return MergeResponse(
        success=True,
        access_token=auth.access_token,
        refresh_token=auth.refresh_token,
        user=CabinetUserResponse.model_validate(user),
    )
