"""What other plugins may use of the cabinet auth plugin (the rest is private).

- Sessions: :func:`issue_session` answers a login, :func:`revoke_all` ends a user's sessions.
- Messenger sign-in checks: :func:`verify_init_data`, :func:`verify_widget`,
  :func:`identity_from_init_data` (raise :class:`SignatureError`).
- OpenID Connect errors and leeway, single-use tokens (:func:`use_once`).
- The answers' schemas and :class:`CabinetAuthSettings`.
"""

from __future__ import annotations

from subsvc_cabinet_auth.messenger import (
    MessengerIdentity,
    SignatureError,
    identity_from_init_data,
    verify_init_data,
    verify_widget,
)
from subsvc_cabinet_auth.oidc import LEEWAY_SECONDS, OIDCNotConfigured, OIDCTokenError, ProviderUnavailable
from subsvc_cabinet_auth.replay import use_once
from subsvc_cabinet_auth.schemas import (
    AuthResponse,
    CabinetUserResponse,
    CampaignSlug,
    InviterCode,
    MessageResponse,
)
from subsvc_cabinet_auth.sessions import issue_session, revoke_all
from subsvc_cabinet_auth.settings import CabinetAuthSettings

__all__ = [
    "LEEWAY_SECONDS",
    "AuthResponse",
    "CabinetAuthSettings",
    "CabinetUserResponse",
    "CampaignSlug",
    "InviterCode",
    "MessageResponse",
    "MessengerIdentity",
    "OIDCNotConfigured",
    "OIDCTokenError",
    "ProviderUnavailable",
    "SignatureError",
    "identity_from_init_data",
    "issue_session",
    "revoke_all",
    "use_once",
    "verify_init_data",
    "verify_widget",
]
