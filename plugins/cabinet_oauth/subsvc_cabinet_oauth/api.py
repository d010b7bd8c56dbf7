"""What other plugins may use of the OAuth plugin (the rest of ``subsvc_cabinet_oauth`` is
private).

- :func:`offer_merge`: a merge token for a user who proved control of another account (e.g. the
  e-mail plugin, after the code mailed to that account's address came back), consumed by
  ``POST /cabinet/auth/merge/{token}``.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc_cabinet_oauth.settings import CabinetOAuthSettings
from subsvc_cabinet_oauth.tokens import create_merge_token


async def offer_merge(
    app: Starlette,
    session: AsyncSession,
    *,
    primary_user_id: int,
    secondary_user_id: int,
    method: str,
    subject: str,
) -> tuple[str, int]:
    """A merge token (in the caller's transaction) folding ``secondary_user_id`` into
    ``primary_user_id``, proved by ``method`` (e.g. ``email``) for ``subject``; with its
    lifetime in seconds (``OAUTH_MERGE_TOKEN_TTL_SECONDS``)."""
    ttl = CabinetOAuthSettings.of(app).OAUTH_MERGE_TOKEN_TTL_SECONDS
    token = await create_merge_token(
        session,
        primary_user_id=primary_user_id,
        secondary_user_id=secondary_user_id,
        provider=method,
        subject=subject,
        ttl_seconds=ttl,
    )
    return token, ttl


__all__ = ["offer_merge"]
