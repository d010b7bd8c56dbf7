"""Cabinet Auth endpoints: the messenger logins, deep link, auto-login, refresh, logout, me."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User

from subsvc.api import Router
from subsvc.api.errors import HTTPError
from subsvc.auth.jwt import TokenError
from subsvc.auth.principal import Principal
from subsvc.ratelimit import RATE_LIMITED, rate_limit
from subsvc.services import services
from subsvc_cabinet_auth import deeplink, replay
from subsvc_cabinet_auth.campaigns import record_first_campaign
from subsvc_cabinet_auth.consent import CONSENT_RESPONSES
from subsvc_cabinet_auth.guard import NOT_ACTIVE, USER_NOT_FOUND, authenticated_user
from subsvc_cabinet_auth.identities import (
    CredentialRefused,
    Reason,
    init_data_identity,
    oidc_identity,
    widget_identity,
)
from subsvc_cabinet_auth.logins import Arrival, messenger_login
from subsvc_cabinet_auth.messenger import INVALID, MISSING_ID
from subsvc_cabinet_auth.schemas import (
    AuthResponse,
    AutoLoginRequest,
    CabinetUserResponse,
    DeepLinkPollRequest,
    DeepLinkTokenResponse,
    IsAdminResponse,
    MessageResponse,
    MessengerAuthRequest,
    MessengerOIDCAuthRequest,
    MessengerWidgetAuthRequest,
    PermissionsResponse,
    RefreshTokenRequest,
    TokenResponse,
)
from subsvc_cabinet_auth.sessions import (
    INVALID_PAYLOAD,
    INVALID_REFRESH,
    REFRESH_EXPIRED,
    REFRESH_REVOKED,
    USER_INACTIVE,
    grants_of,
    is_env_admin,
    issue_session,
    refresh_access,
    revoke,
    verify_auto_login_token,
)
from subsvc_cabinet_auth.settings import CabinetAuthSettings

router = Router(area="cabinet", tag="Cabinet Auth", prefix="/cabinet/auth")

BOT_NOT_CONFIGURED = "Bot not configured"
WIDGET_REPLAYED = "This authorization has already been used. Please log in again."
OIDC_INVALID = "Invalid or expired messenger OIDC token"
OIDC_OFF = "Messenger OIDC is not configured"
OIDC_UNAVAILABLE = "The messenger's identity provider is unavailable"
AUTO_LOGIN_INVALID = "Invalid or expired auto-login token"
AUTO_LOGIN_USED = "This auto-login token has already been used"
ACCOUNT_DEACTIVATED = "Account is deactivated"
ADMIN_AUTO_LOGIN = "Administrator accounts cannot use auto-login. Please sign in through the messenger."


def _settings(request: Request) -> CabinetAuthSettings:
    return CabinetAuthSettings.of(request.app)


# --- messenger logins ----------------------------------------------------------------------

# how a refused credential is answered: (status, text) per login and reason
_REFUSALS: dict[str, dict[Reason, tuple[int, str]]] = {
    "init_data": {"invalid": (401, INVALID), "missing_id": (401, MISSING_ID)},
    "widget": {
        "invalid": (401, INVALID),
        "missing_id": (401, MISSING_ID),
        "replayed": (401, WIDGET_REPLAYED),
    },
    "oidc": {
        "not_configured": (400, OIDC_OFF),
        "unavailable": (503, OIDC_UNAVAILABLE),
        "invalid": (401, OIDC_INVALID),
        "replayed": (401, OIDC_INVALID),
    },
}


# what a messenger login answers beyond its success (a refused credential, a user who may not log in)
MESSENGER_REFUSALS = {
    401: f"{INVALID}, or {MISSING_ID}",
    403: NOT_ACTIVE,
    **CONSENT_RESPONSES,
    **RATE_LIMITED,
}
WIDGET_REFUSALS = {
    401: f"{INVALID}, {MISSING_ID}, or {WIDGET_REPLAYED}",
    403: NOT_ACTIVE,
    **CONSENT_RESPONSES,
    **RATE_LIMITED,
}
OIDC_REFUSALS = {400: OIDC_OFF, 401: OIDC_INVALID, 403: NOT_ACTIVE, **CONSENT_RESPONSES, **RATE_LIMITED}


def _arrival(
    source: str, body: MessengerAuthRequest | MessengerWidgetAuthRequest | MessengerOIDCAuthRequest
) -> Arrival:
    return Arrival(
        source=source,
        referral_code=body.referral_code,
        campaign_slug=body.campaign_slug,
        accepted_legal_documents=body.accepted_legal_documents,
    )


def _refused(method: str, exc: CredentialRefused) -> HTTPError:
    if exc.reason == "no_bot_token":
        return HTTPError(503, BOT_NOT_CONFIGURED)
    status, text = _REFUSALS[method].get(exc.reason, (401, INVALID))
    return HTTPError(status, text)


@router.post("/messenger", public=True, responses=MESSENGER_REFUSALS)
async def auth_messenger(request: Request, session: AsyncSession, body: MessengerAuthRequest) -> AuthResponse:
    """Log in with the mini application's init data (created on first login; a deleted
    account is revived)."""
    await rate_limit(request, "messenger_login", "10/minute")
    try:
        identity = init_data_identity(request.app, body.init_data)
    except CredentialRefused as exc:
        raise _refused("init_data", exc) from None
    return await messenger_login(request, session, identity, _arrival("messenger", body), revive_deleted=True)


@router.post("/messenger/widget", public=True, responses=WIDGET_REFUSALS)
async def auth_messenger_widget(
    request: Request, session: AsyncSession, body: MessengerWidgetAuthRequest
) -> AuthResponse:
    """Log in with the login widget's signed fields; each payload is accepted once."""
    await rate_limit(request, "messenger_widget", "10/minute")
    try:
        identity = await widget_identity(request.app, session, body.signed_fields(), body.hash)
    except CredentialRefused as exc:
        raise _refused("widget", exc) from None
    return await messenger_login(request, session, identity, _arrival("widget", body))


@router.post("/messenger/oidc", public=True, responses=OIDC_REFUSALS)
async def auth_messenger_oidc(
    request: Request, session: AsyncSession, body: MessengerOIDCAuthRequest
) -> AuthResponse:
    """Log in with an OpenID Connect ID token of the messenger's provider; each token is
    accepted once."""
    await rate_limit(request, "messenger_oidc", "10/minute")
    try:
        identity = await oidc_identity(request.app, session, body.id_token)
    except CredentialRefused as exc:
        raise _refused("oidc", exc) from None
    return await messenger_login(request, session, identity, _arrival("oidc", body), update_last_name=False)


# --- deep link and auto-login --------------------------------------------------------------


def _active(user: User | None) -> User:
    """The user a one-time login names: 401 when there is none, 403 when it is not active."""
    if user is None:
        raise HTTPError(401, USER_NOT_FOUND)
    if user.status != "active":
        raise HTTPError(403, ACCOUNT_DEACTIVATED)
    return user


@router.post("/deeplink/request", public=True, responses=RATE_LIMITED)
async def request_deep_link_token(request: Request, session: AsyncSession) -> DeepLinkTokenResponse:
    """A one-time token for ``/start webauth_<token>`` in the bot (see ``/auth/deeplink/confirm``)."""
    await rate_limit(request, "deeplink_request", "10/minute")
    settings = _settings(request)
    if not settings.BOT_USERNAME:
        raise HTTPError(503, BOT_NOT_CONFIGURED)
    lifetime = settings.CABINET_DEEPLINK_TOKEN_SECONDS
    token = await deeplink.create(session, lifetime)
    return DeepLinkTokenResponse(token=token, bot_username=settings.BOT_USERNAME, expires_in=lifetime)


@router.post(
    "/deeplink/poll",
    public=True,
    responses={
        202: deeplink.WAITING,
        401: USER_NOT_FOUND,
        403: ACCOUNT_DEACTIVATED,
        410: f"{deeplink.GONE}, or {deeplink.CONSUMED}",
        **RATE_LIMITED,
    },
)
async def poll_deep_link_token(
    request: Request, session: AsyncSession, body: DeepLinkPollRequest
) -> AuthResponse:
    """202 'Waiting for confirmation' until the bot confirms; then the session, once; 410
    when expired or used. ``campaign_slug`` becomes the first campaign of an account the bot
    made during this login (after the token was requested)."""
    await rate_limit(request, "deeplink_poll", "60/minute")
    row = await deeplink.consume(session, body.token)
    user = _active(await session.get(User, row.user_id))
    if user.created_at >= row.created_at and user.id is not None:
        events = services(request.app).events
        await record_first_campaign(session, user.id, body.campaign_slug, "deep_link", events=events)
    return await issue_session(request, session, user, device_info="deep_link")


@router.post(
    "/login/auto",
    public=True,
    responses={
        401: f"{AUTO_LOGIN_INVALID}, {INVALID_PAYLOAD}, {USER_NOT_FOUND}, or {AUTO_LOGIN_USED}",
        403: f"{ACCOUNT_DEACTIVATED}, or {ADMIN_AUTO_LOGIN}",
        **RATE_LIMITED,
    },
)
async def auto_login(request: Request, session: AsyncSession, body: AutoLoginRequest) -> AuthResponse:
    """Log in with a one-time auto-login token (handed out after a guest purchase);
    administrators must log in properly."""
    await rate_limit(request, "auto_login", "5/minute")
    try:
        claims = verify_auto_login_token(request.app, body.token)
    except TokenError:
        raise HTTPError(401, AUTO_LOGIN_INVALID) from None
    try:
        user_id = int(str(claims["sub"]))
    except (KeyError, ValueError):
        raise HTTPError(401, "Invalid token payload") from None
    user = _active(await session.get(User, user_id) if 0 < user_id < 2**31 else None)
    if is_env_admin(services(request.app).settings, user):
        raise HTTPError(403, ADMIN_AUTO_LOGIN)
    forgotten_at = datetime.fromtimestamp(float(claims["exp"]), UTC)
    if not await replay.use_once(session, "auto_login", body.token, forgotten_at):
        raise HTTPError(401, AUTO_LOGIN_USED)
    return await issue_session(request, session, user, device_info="auto_login")


# --- sessions ------------------------------------------------------------------------------


@router.post(
    "/refresh",
    public=True,
    responses={
        401: f"{INVALID_REFRESH}, {INVALID_PAYLOAD}, {REFRESH_REVOKED}, {REFRESH_EXPIRED}, or {USER_INACTIVE}"
    },
)
async def refresh_token(request: Request, session: AsyncSession, body: RefreshTokenRequest) -> TokenResponse:
    """A new access token with fresh grants; the refresh token stays valid (no rotation)."""
    return await refresh_access(request, session, body.refresh_token)


@router.post("/logout", public=True)
async def logout(session: AsyncSession, body: RefreshTokenRequest) -> MessageResponse:
    """Revoke the refresh token (always answers success: a logout cannot fail)."""
    await revoke(session, body.refresh_token)
    return MessageResponse(message="Logged out successfully")


# --- the caller ----------------------------------------------------------------------------


async def _me(request: Request, session: AsyncSession, principal: Principal) -> User:
    user = authenticated_user(request) or await session.get(User, principal.id)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    return user


@router.get("/me")
async def get_current_user(
    request: Request, session: AsyncSession, principal: Principal
) -> CabinetUserResponse:
    """The logged-in user."""
    return CabinetUserResponse.model_validate(await _me(request, session, principal))


@router.get("/me/is-admin")
async def check_is_admin(request: Request, session: AsyncSession, principal: Principal) -> IsAdminResponse:
    """An administrator by ``ADMIN_IDS``/``ADMIN_EMAILS``, or the holder of a role above level 0."""
    user = await _me(request, session, principal)
    grants = await grants_of(request.app, session, user)
    return IsAdminResponse(is_admin=grants.level > 0)


@router.get("/me/permissions")
async def get_my_permissions(
    request: Request, session: AsyncSession, principal: Principal
) -> PermissionsResponse:
    """The caller's permissions, role names and highest role level (administrators from the
    environment: ``*:*``, ``superadmin``, 1000)."""
    grants = await grants_of(request.app, session, await _me(request, session, principal))
    return PermissionsResponse(
        permissions=list(grants.permissions), roles=list(grants.roles), role_level=grants.level
    )
