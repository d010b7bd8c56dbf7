"""What other plugins may use of the cabinet auth plugin (the rest is private).

- Sessions: :func:`issue_session` answers a login, :func:`revoke_all` ends a user's sessions.
- Who a messenger credential proves to be: :func:`init_data_identity`, :func:`widget_identity`,
  :func:`oidc_identity` (raise :class:`CredentialRefused` with a :data:`Reason`).
- New accounts: :func:`require_legal_consent` (428 unless the required legal documents are
  accepted) and :func:`record_consent`; :func:`record_first_campaign` and
  :func:`first_campaign` (first-touch campaign attribution, for the campaigns plugin; event
  :data:`FIRST_CAMPAIGN_RECORDED`).
- The answers' schemas and :class:`CabinetAuthSettings`.
"""

from __future__ import annotations

from subsvc_cabinet_auth.campaigns import (
    FIRST_CAMPAIGN_RECORDED,
    FirstCampaignRecorded,
    first_campaign,
    record_first_campaign,
)
from subsvc_cabinet_auth.consent import CONSENT_RESPONSES, record_consent, require_legal_consent
from subsvc_cabinet_auth.identities import (
    CredentialRefused,
    Reason,
    init_data_identity,
    oidc_identity,
    widget_identity,
)
from subsvc_cabinet_auth.messenger import MessengerIdentity
from subsvc_cabinet_auth.models import FirstCampaign
from subsvc_cabinet_auth.schemas import (
    AuthResponse,
    CabinetUserResponse,
    CampaignSlug,
    InviterCode,
    LegalDocuments,
    MessageResponse,
)
from subsvc_cabinet_auth.sessions import issue_session, revoke_all
from subsvc_cabinet_auth.settings import CabinetAuthSettings

__all__ = [
    "CONSENT_RESPONSES",
    "FIRST_CAMPAIGN_RECORDED",
    "AuthResponse",
    "CabinetAuthSettings",
    "CabinetUserResponse",
    "CampaignSlug",
    "CredentialRefused",
    "FirstCampaign",
    "FirstCampaignRecorded",
    "InviterCode",
    "LegalDocuments",
    "MessageResponse",
    "MessengerIdentity",
    "Reason",
    "first_campaign",
    "init_data_identity",
    "issue_session",
    "oidc_identity",
    "record_consent",
    "record_first_campaign",
    "require_legal_consent",
    "revoke_all",
    "widget_identity",
]
