"""What other plugins may use of the pages plugin (the rest of ``subsvc_pages`` is private).

- :func:`legal_consent_config`: which legal documents a new cabinet account must accept (what
  ``GET /cabinet/info/legal-consent`` answers, :class:`LegalConsentConfigResponse`).
- :func:`record_legal_consent`: record the documents a user accepted (the keys of
  ``accepted_legal_documents``), idempotent per user, document and version.
  The document keys are ``public_offer`` and ``privacy_policy``.
"""

from __future__ import annotations

from subsvc_pages.cabinet_schemas import LegalConsentConfigResponse
from subsvc_pages.consent import legal_consent_config, record_legal_consent

__all__ = ["LegalConsentConfigResponse", "legal_consent_config", "record_legal_consent"]
