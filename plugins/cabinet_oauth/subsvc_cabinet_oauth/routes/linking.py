"""Cabinet Account Linking: the logged-in user's ways to log in, linking a provider or the
messenger, unlinking, and completing a link without a JWT (external browser)."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User

from subsvc.api import Router, from_attributes
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED, rate_limit
from subsvc_cabinet_oauth import errors, flows, messenger_link, service
from subsvc_cabinet_oauth.errors import FlowError
from subsvc_cabinet_oauth.merge import plugin_runs
from subsvc_cabinet_oauth.models import LINK
from subsvc_cabinet_oauth.providers import Profile
from subsvc_cabinet_oauth.routes import current_user
from subsvc_cabinet_oauth.schemas import (
    LinkCallbackRequest,
    LinkCallbackResponse,
    LinkedProvider,
    LinkedProvidersResponse,
    LinkInitResponse,
    LinkMessengerRequest,
    ProviderName,
    ServerCompleteRequest,
    ServerCompleteResponse,
    UnlinkResponse,
)
from subsvc_cabinet_oauth.settings import PROVIDERS

router = Router(area="cabinet", tag="Cabinet Account Linking", prefix="/cabinet/auth/account")


def _answer(outcome: service.LinkOutcome) -> LinkCallbackResponse:
    return from_attributes(LinkCallbackResponse, outcome, merge_required=outcome.merge_token is not None)


@router.get("/linked-providers")
async def get_linked_providers(
    request: Request, session: AsyncSession, principal: Principal
) -> LinkedProvidersResponse:
    """Return all auth methods with their link status for the current user.

    `messenger`, `email` (when the e-mail plugin runs, or the user has a password) and every
    enabled provider, plus any provider still linked after it was switched off; the
    identifier is the messenger id, the e-mail or the provider's account id.
    """
    user = await current_user(session, principal)
    assert user.id is not None
    linked = await service.identities_of(session, user.id)
    enabled = {config.name for config in flows.oauth_settings(request.app).enabled_providers()}
    providers = [
        LinkedProvider(
            provider=service.MESSENGER,
            linked=user.messenger_id is not None,
            identifier=str(user.messenger_id) if user.messenger_id is not None else None,
        )
    ]
    has_password = bool(user.email and user.password_hash)
    if has_password or plugin_runs(request.app, "cabinet_email"):
        providers.append(
            LinkedProvider(
                provider=service.EMAIL, linked=has_password, identifier=user.email if has_password else None
            )
        )
    for name in PROVIDERS:
        identity = linked.get(name)
        if name in enabled or identity is not None:
            identifier = identity.subject if identity is not None else None
            providers.append(
                LinkedProvider(provider=name, linked=identity is not None, identifier=identifier)
            )
    return LinkedProvidersResponse(providers=providers)


@router.get(
    "/link/{provider}/init",
    responses={400: "Provider is already linked to your account; Requested OAuth provider is not available"},
)
async def link_provider_init(
    request: Request, session: AsyncSession, principal: Principal, provider: ProviderName
) -> LinkInitResponse:
    """Start OAuth flow for linking a new provider to the current account."""
    user = await current_user(session, principal)
    assert user.id is not None
    if provider in await service.identities_of(session, user.id):
        raise FlowError(400, errors.ALREADY_LINKED)
    started = await flows.start(request, provider, LINK, user_id=user.id)
    return LinkInitResponse(authorize_url=started.authorize_url, state=started.state)


async def _complete(
    request: Request, session: AsyncSession, user: User, profile: Profile
) -> LinkCallbackResponse:
    ttl = flows.oauth_settings(request.app).OAUTH_MERGE_TOKEN_TTL_SECONDS
    try:
        outcome = await service.link(session, user, profile, merge_ttl_seconds=ttl)
    except IntegrityError:
        raise FlowError(409, errors.JUST_LINKED) from None
    return _answer(outcome)


@router.post(
    "/link/{provider}/callback",
    responses={
        400: "Invalid or expired OAuth state; state not for linking or of another user; provider failures",
        409: "Another account of this provider is linked already, or the account was just linked elsewhere",
        **RATE_LIMITED,
    },
)
async def link_provider_callback(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    provider: ProviderName,
    body: LinkCallbackRequest,
) -> LinkCallbackResponse:
    """Handle OAuth callback for linking a provider to the current account.

    `linked` or `already_linked`; when the provider account logs in as another user the answer
    is `success: false, merge_required: true` with a merge token (see Cabinet Account Merge).
    """
    await rate_limit(request, "oauth_link", "10/minute")
    row = await flows.take_state(request, body.state, provider=provider, purpose=LINK, user_id=principal.id)
    profile = await flows.fetch_profile(request, row, body.state, body.code, body.device_id)
    user = await current_user(session, principal)
    return await _complete(request, session, user, profile)


@router.post(
    "/link/server-complete",
    public=True,
    responses={
        400: "Invalid or expired OAuth state; Provider does not match OAuth state; provider failures",
        403: errors.USER_INACTIVE,
        409: errors.JUST_LINKED,
        **RATE_LIMITED,
    },
)
async def link_server_complete(
    request: Request, session: AsyncSession, body: ServerCompleteRequest
) -> ServerCompleteResponse:
    """Complete OAuth account linking without JWT.

    The one-time state from `link/{provider}/init` is the credential (it names the user who
    started the link). Used when the provider's page opens in an external browser (e.g. from
    the messenger's mini application). The provider comes from the state when not given.
    """
    await rate_limit(request, "oauth_link", "10/minute")
    row = await flows.take_state(request, body.state, provider=None, purpose=LINK)
    if body.provider is not None and body.provider != row.provider:
        raise FlowError(400, errors.PROVIDER_MISMATCH)
    if row.user_id is None:
        raise FlowError(400, errors.NOT_FOR_LINKING)
    profile = await flows.fetch_profile(request, row, body.state, body.code, body.device_id)
    user = await session.get(User, row.user_id)
    if user is None:
        raise FlowError(400, errors.USER_NOT_FOUND)
    if user.status != "active":
        raise FlowError(403, errors.USER_INACTIVE)
    answer = await _complete(request, session, user, profile)
    return from_attributes(ServerCompleteResponse, answer, provider=row.provider)


@router.post(
    "/unlink/{provider}",
    responses={400: "Provider is not linked to your account; Cannot unlink last authentication method"},
)
async def unlink_provider(
    session: AsyncSession, principal: Principal, provider: ProviderName
) -> UnlinkResponse:
    """Unlink an OAuth provider from the current account (never the last way to log in)."""
    user = await current_user(session, principal)
    await service.unlink(session, user, provider)
    return UnlinkResponse(success=True)


@router.post(
    "/link/messenger",
    responses={
        400: "Messenger is already linked to your account; invalid init data or widget fields",
        401: "Invalid or expired messenger OIDC token",
        409: "This messenger account was just linked to another user",
        **RATE_LIMITED,
    },
)
async def link_messenger(
    request: Request, session: AsyncSession, principal: Principal, body: LinkMessengerRequest
) -> LinkCallbackResponse:
    """Link a messenger account via WebApp initData, OIDC id_token, or Login Widget.

    When another user has that messenger account the answer is `merge_required` with a merge
    token.
    """
    await rate_limit(request, "link_messenger", "10/minute")
    user = await current_user(session, principal)
    if user.messenger_id is not None:
        raise FlowError(400, errors.MESSENGER_ALREADY_LINKED)
    identity = await messenger_link.verified_identity(request, session, body)
    ttl = flows.oauth_settings(request.app).OAUTH_MERGE_TOKEN_TTL_SECONDS
    try:
        outcome = await service.link_messenger(request.app, session, user, identity, ttl)
    except IntegrityError:
        raise FlowError(409, errors.MESSENGER_JUST_LINKED) from None
    return _answer(outcome)
