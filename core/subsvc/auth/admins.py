"""The administrator check of `ADMIN_IDS` / `ADMIN_EMAILS`."""

from __future__ import annotations

import unicodedata

from subsvc.settings import Settings


def normalise_email(email: str) -> str:
    """NFKC, trimmed, lower-cased: the form e-mails are compared in."""
    return unicodedata.normalize("NFKC", email).strip().lower()


def is_admin(settings: Settings, *, messenger_id: int | None = None, email: str | None = None) -> bool:
    """True for a messenger id in ``ADMIN_IDS`` or a (verified) e-mail in ``ADMIN_EMAILS``.

    The caller vouches that ``email`` is verified; unverified addresses must not be passed.
    """
    if messenger_id is not None and messenger_id in settings.ADMIN_IDS:
        return True
    if email:
        admins = {normalise_email(item) for item in settings.ADMIN_EMAILS}
        return normalise_email(email) in admins
    return False
