"""`/tokens`: manage the Web API's tokens (tag `auth`)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router, from_attributes
from subsvc.auth.principal import Principal
from subsvc.tokens import service
from subsvc.tokens.models import ApiToken
from subsvc.tokens.schemas import TokenCreateRequest, TokenCreateResponse, TokenResponse

router = Router(area="web", tag="auth")


@router.get("/tokens", response_model=list[TokenResponse])
async def get_tokens(session: AsyncSession) -> list[ApiToken]:
    """Every token, active or not, newest first."""
    return await service.list_tokens(session)


@router.post("/tokens", status_code=201)
async def create_token(
    request: Request, session: AsyncSession, principal: Principal, payload: TokenCreateRequest
) -> TokenCreateResponse:
    """Create a token; the whole token is in this response only."""
    token, plain = await service.create_token(
        session,
        request.app.state.settings,
        payload.name,
        description=payload.description,
        expires_at=payload.expires_at,
        created_by=principal.name,
    )
    return from_attributes(TokenCreateResponse, token, token=plain)


async def _set_active(request: Request, session: AsyncSession, token_id: int, active: bool) -> ApiToken:
    token = await service.set_active(session, token_id, active)
    await session.commit()
    await request.app.state.token_auth.invalidate(token_id)
    return token


@router.post("/tokens/{token_id}/revoke", response_model=TokenResponse)
async def revoke_token(request: Request, session: AsyncSession, token_id: int) -> ApiToken:
    """Deactivate a token (it is refused from now on, on every instance)."""
    return await _set_active(request, session, token_id, False)


@router.post("/tokens/{token_id}/activate", response_model=TokenResponse)
async def activate_token(request: Request, session: AsyncSession, token_id: int) -> ApiToken:
    """Reactivate a revoked token."""
    return await _set_active(request, session, token_id, True)


@router.delete("/tokens/{token_id}", status_code=204, summary="Delete Token Endpoint")
async def delete_token(request: Request, session: AsyncSession, token_id: int) -> None:
    """Delete a token for good."""
    await service.delete_token(session, token_id)
    await session.commit()
    await request.app.state.token_auth.invalidate(token_id)
