"""Cabinet OAuth: the providers on offer, the authorization URL, the login callback, and
``GET /cabinet/auth/oauth/{provider}`` (a redirect to the provider, as the spec names it)."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import RedirectResponse
from subsvc_cabinet_auth.api import AuthResponse, issue_session

from subsvc.api import Router
from subsvc.ratelimit import RATE_LIMITED, rate_limit
from subsvc_cabinet_oauth import flows, service
from subsvc_cabinet_oauth.models import LOGIN
from subsvc_cabinet_oauth.providers import SPECS
from subsvc_cabinet_oauth.schemas import (
    OAuthAuthorizeResponse,
    OAuthCallbackRequest,
    OAuthProviderInfo,
    OAuthProvidersResponse,
    ProviderName,
)

router = Router(area="cabinet", tag="Cabinet OAuth", prefix="/cabinet/auth/oauth")


@router.get("/providers", public=True)
async def get_oauth_providers(request: Request) -> OAuthProvidersResponse:
    """Get list of enabled OAuth providers."""
    enabled = flows.oauth_settings(request.app).enabled_providers()
    return OAuthProvidersResponse(
        providers=[OAuthProviderInfo(name=c.name, display_name=SPECS[c.name].display_name) for c in enabled]
    )


@router.get(
    "/{provider}/authorize",
    public=True,
    responses={400: "Requested OAuth provider is not available", **RATE_LIMITED},
)
async def get_oauth_authorize_url(request: Request, provider: ProviderName) -> OAuthAuthorizeResponse:
    """Get authorization URL for an OAuth provider.

    The state is single use, bound to the provider, and expires after
    `OAUTH_STATE_TTL_SECONDS` (10 minutes); Google, Yandex and VK ID get a PKCE S256 challenge.
    """
    await rate_limit(request, "oauth_authorize", "30/minute")
    started = await flows.start(request, provider, LOGIN)
    return OAuthAuthorizeResponse(authorize_url=started.authorize_url, state=started.state)


@router.get(
    "/{provider}",
    status_code=302,
    public=True,
    responses={400: "Requested OAuth provider is not available", **RATE_LIMITED},
)
async def oauth_login_redirect(request: Request, provider: ProviderName) -> RedirectResponse:
    """OAuth 2.0 login through an external provider: a redirect to its consent page with a
    fresh state. The provider sends the browser back to the cabinet's
    `/auth/oauth/callback?code=…&state=…`, which posts them to `POST …/{provider}/callback`."""
    await rate_limit(request, "oauth_authorize", "30/minute")
    started = await flows.start(request, provider, LOGIN)
    return RedirectResponse(started.authorize_url, status_code=302, headers={"Cache-Control": "no-store"})


@router.post(
    "/{provider}/callback",
    public=True,
    responses={
        400: "Invalid or expired OAuth state; Failed to exchange authorization code; "
        "Failed to fetch user information from provider",
        403: "User account is not active",
        409: "{code: 'email_unverified_local', message}",
        **RATE_LIMITED,
    },
)
async def oauth_callback(
    request: Request, session: AsyncSession, provider: ProviderName, body: OAuthCallbackRequest
) -> AuthResponse:
    """Handle OAuth callback: exchange code, find/create user, return JWT.

    The provider account's own link logs its user in; else a verified provider e-mail that a
    local user has verified links the account to that user (unverified there: 409
    `email_unverified_local`); else a new user is made.
    """
    await rate_limit(request, "oauth_callback", "10/minute")
    row = await flows.take_state(request, body.state, provider=provider, purpose=LOGIN)
    profile = await flows.fetch_profile(request, row, body.state, body.code, body.device_id)
    try:
        user = await service.login(request.app, session, profile, referral_code=body.referral_code)
    except IntegrityError:  # the same new account logged in concurrently: it exists now
        await session.rollback()
        user = await service.login(request.app, session, profile, referral_code=body.referral_code)
    return await issue_session(request, session, user, device_info=f"oauth:{provider}")
