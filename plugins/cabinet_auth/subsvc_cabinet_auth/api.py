"""What other plugins may use of the cabinet auth plugin (the rest is private).

- Sessions: :func:`issue_session` answers a login, :func:`revoke_all` ends a user's sessions.
- Who a messenger credential proves to be: :func:`init_data_identity`, :func:`widget_identity`,
  :func:`oidc_identity` (raise :class:`CredentialRefused` with a :data:`Reason`).
- The answers' schemas and :class:`CabinetAuthSettings`.
"""

from __future__ import annotations

from subsvc_cabinet_auth.identities import (
    CredentialRefused,
    Reason,
    init_data_identity,
    oidc_identity,
    widget_identity,
)
from subsvc_cabinet_auth.messenger import MessengerIdentity
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
    "AuthResponse",
    "CabinetAuthSettings",
    "CabinetUserResponse",
    "CampaignSlug",
    "CredentialRefused",
    "InviterCode",
    "MessageResponse",
    "MessengerIdentity",
    "Reason",
    "init_data_identity",
    "issue_session",
    "oidc_identity",
    "revoke_all",
    "widget_identity",
]
