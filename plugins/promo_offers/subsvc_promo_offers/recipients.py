"""Who a broadcast reaches: the members of a ``target`` segment (the segments plugin) and/or one
user named by internal id, messenger id or e-mail, as the reference resolves them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.api import fits_int32, fits_int64
from subsvc.api.refusal import Refusal
from subsvc_promo_offers.common import run_select
from subsvc_promo_offers.segments import segment_user_ids
from subsvc_promo_offers.tables import USERS


class RecipientError(Refusal):
    """The named user cannot be resolved: answer ``status`` with ``detail``."""


@dataclass(frozen=True)
class Texts:
    """The error texts of one API area (the Web API's and the cabinet's differ in the reference)."""

    by_messenger_not_found: str
    messenger_mismatch: str
    user_not_found: str
    nobody: str
    by_email_not_found: str = "User not found by email"
    email_mismatch: str = "Provided user_id does not match email"


WEB_TEXTS = Texts(
    by_messenger_not_found="User not found",
    messenger_mismatch="Provided user_id does not match messenger_id",
    user_not_found="User not found",
    nobody="Пустая аудитория: укажите target или конкретного пользователя",
)
ADMIN_TEXTS = Texts(
    by_messenger_not_found="User not found by messenger_id",
    messenger_mismatch="Provided user_id does not match messenger_id",
    user_not_found="User not found",
    nobody="No recipients: specify target or user",
)


async def _user_id_where(session: AsyncSession, condition: ColumnElement[bool]) -> int | None:
    row = (await run_select(session, select(USERS.c.id).where(condition).limit(1))).first()
    return None if row is None else int(row[0])


async def user_id_by_messenger_id(session: AsyncSession, messenger_id: int) -> int | None:
    if not fits_int64(messenger_id):
        return None
    return await _user_id_where(session, USERS.c.messenger_id == messenger_id)


async def user_id_by_email(session: AsyncSession, email: str) -> int | None:
    """The user with this e-mail, compared without case (addresses are stored lower-cased by
    the cabinet; the exact match uses the unique index)."""
    address = email.strip()
    if not address:
        return None
    found = await _user_id_where(session, USERS.c.email == address.lower())
    if found is None:
        found = await _user_id_where(session, func.lower(USERS.c.email) == address.lower())
    return found


async def user_exists(session: AsyncSession, user_id: int) -> bool:
    return fits_int32(user_id) and await _user_id_where(session, USERS.c.id == user_id) is not None


async def named_user(
    session: AsyncSession,
    texts: Texts,
    *,
    user_id: int | None,
    messenger_id: int | None,
    email: str | None = None,
) -> int | None:
    """The one user the request names, checked as the reference does: the messenger id must
    name a user (and the same one as ``user_id``, when both are given); the e-mail is looked up
    only without a messenger id; ``user_id`` alone must name a user."""
    if messenger_id is not None:
        found = await user_id_by_messenger_id(session, messenger_id)
        return _same_user(found, user_id, texts.by_messenger_not_found, texts.messenger_mismatch)
    if email is not None:
        found = await user_id_by_email(session, email)
        return _same_user(found, user_id, texts.by_email_not_found, texts.email_mismatch)
    if user_id is not None and not await user_exists(session, user_id):
        raise RecipientError(404, texts.user_not_found)
    return user_id


def _same_user(found: int | None, user_id: int | None, not_found: str, mismatch: str) -> int:
    """The user a messenger id or e-mail names: 404 ``not_found`` for nobody, 400 ``mismatch``
    when ``user_id`` names another."""
    if found is None:
        raise RecipientError(404, not_found)
    if user_id and user_id != found:
        raise RecipientError(400, mismatch)
    return found


async def resolve(
    app: Starlette,
    session: AsyncSession,
    texts: Texts,
    *,
    target: str | None,
    user_id: int | None,
    messenger_id: int | None,
    email: str | None = None,
) -> list[int]:
    """The recipients' user ids: the segment's members, then the named user (no duplicates).
    An unknown segment has no members; nobody at all is a 400."""
    recipients: dict[int, None] = {}
    if target:
        recipients.update(dict.fromkeys(await segment_user_ids(app, session, target)))
    named = await named_user(session, texts, user_id=user_id, messenger_id=messenger_id, email=email)
    if named is not None:
        recipients[named] = None
    if not recipients:
        raise RecipientError(400, texts.nobody)
    return list(recipients)
