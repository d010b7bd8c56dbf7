"""Promo codes as records: list, read with usage, create, change, delete; no HTTP in here.

A change locks the code's row (``FOR UPDATE`` on PostgreSQL), so ``max_uses`` is checked
against the ``current_uses`` that activations cannot move meanwhile. Deleting a code deletes
its uses (the database cascades); discounts it granted stay, keeping the code's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_promo_groups.api import find_group
from subsvc_tariffs.api import Tariff, find_tariff
from subsvc_users.api import User

from subsvc.api import INT32_MAX, from_attributes, rubles
from subsvc.db import utcnow
from subsvc_promocodes import rules
from subsvc_promocodes.models import UNLIMITED_USES, PromoCode, PromoCodeType, PromoCodeUse
from subsvc_promocodes.rules import Draft, PromoCodeRuleError
from subsvc_promocodes.schemas import (
    PromoCodeCreateRequest,
    PromoCodeDetailResponse,
    PromoCodeRecentUse,
    PromoCodeResponse,
    PromoCodeUpdateRequest,
)

NEWEST_FIRST = (col(PromoCode.created_at).desc(), col(PromoCode.id).desc())
CLEARABLE = ("valid_until", "promo_group_id", "tariff_id")


class PromoCodeNotFound(LookupError):
    """No promo code has the id."""


# --- reading -------------------------------------------------------------------------------------


def record(code: PromoCode, tariff_names: dict[int, str], now: datetime | None = None) -> PromoCodeResponse:
    """The record of a code, ``uses_left`` and ``is_valid`` computed for ``now``, its tariff
    named from ``tariff_names`` (see :func:`tariff_names`)."""
    return from_attributes(
        PromoCodeResponse,
        code,  # with its uses_left
        balance_bonus_rubles=rubles(code.balance_bonus_kopeks),
        is_valid=code.is_valid_at(now or utcnow()),
        tariff_name=tariff_names.get(code.tariff_id) if code.tariff_id is not None else None,
    )


async def tariff_names(session: AsyncSession, codes: Sequence[PromoCode]) -> dict[int, str]:
    """The names of the tariffs these codes are bound to, in one query (none: no query)."""
    ids = {code.tariff_id for code in codes if code.tariff_id is not None}
    if not ids:
        return {}
    query = select(col(Tariff.id), col(Tariff.name)).where(col(Tariff.id).in_(ids))
    return {tariff_id: name for tariff_id, name in (await session.exec(query)).all() if tariff_id is not None}


async def records(session: AsyncSession, codes: Sequence[PromoCode]) -> list[PromoCodeResponse]:
    """The records of codes, their tariffs named."""
    names = await tariff_names(session, codes)
    return [record(code, names) for code in codes]


async def find(session: AsyncSession, promocode_id: int, *, for_update: bool = False) -> PromoCode | None:
    """The code with this id (``None`` for ids no row can have)."""
    if not 1 <= promocode_id <= INT32_MAX:
        return None
    query = select(PromoCode).where(col(PromoCode.id) == promocode_id)
    if for_update:
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def get(session: AsyncSession, promocode_id: int, *, for_update: bool = False) -> PromoCode:
    code = await find(session, promocode_id, for_update=for_update)
    if code is None:
        raise PromoCodeNotFound(promocode_id)
    return code


async def find_by_code(session: AsyncSession, text: str) -> PromoCode | None:
    """The code whose text this is (compared trimmed and upper-cased)."""
    return (
        await session.exec(select(PromoCode).where(col(PromoCode.code) == rules.normalise_code(text)))
    ).first()


async def list_codes(
    session: AsyncSession, *, limit: int, offset: int, is_active: bool | None = None
) -> tuple[int, Sequence[PromoCode]]:
    """How many codes match, and one page of them, newest first. A page that ends before
    ``limit`` gives the total itself, so only a full or empty page costs a count."""
    conditions = [] if is_active is None else [col(PromoCode.is_active) == is_active]
    query = select(PromoCode).where(*conditions).order_by(*NEWEST_FIRST).limit(limit).offset(offset)
    rows = (await session.exec(query)).all()
    if (rows and len(rows) < limit) or (not rows and offset == 0):
        return offset + len(rows), rows
    total = (await session.exec(select(func.count()).select_from(PromoCode).where(*conditions))).one()
    return total, rows


def _full_name(user: User) -> str | None:
    name = " ".join(part for part in (user.first_name, user.last_name) if part).strip()
    return name or user.username or None


async def detail(session: AsyncSession, code: PromoCode, recent_limit: int) -> PromoCodeDetailResponse:
    """The record with its usage: every activation, those since midnight UTC, and the latest
    ``recent_limit`` with their users."""
    now = utcnow()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    of_code = col(PromoCodeUse.promocode_id) == code.id
    counts = select(
        func.count(),
        func.count().filter(col(PromoCodeUse.used_at) >= midnight),
    ).where(of_code)
    total, today = (await session.exec(counts)).one()
    latest = (
        select(PromoCodeUse, User)
        .join(User, col(User.id) == col(PromoCodeUse.user_id))
        .where(of_code)
        .order_by(col(PromoCodeUse.used_at).desc(), col(PromoCodeUse.id).desc())
        .limit(recent_limit)
    )
    recent = [
        PromoCodeRecentUse(
            id=use.id or 0,
            user_id=use.user_id,
            user_username=user.username,
            user_full_name=_full_name(user),
            user_messenger_id=user.messenger_id,
            used_at=use.used_at,
        )
        for use, user in (await session.exec(latest)).all()
    ]
    return from_attributes(
        PromoCodeDetailResponse,
        record(code, await tariff_names(session, [code]), now),
        total_uses=total,
        today_uses=today,
        recent_uses=recent,
    )


# --- changing ------------------------------------------------------------------------------------


def _stored_max_uses(value: int) -> int:
    return UNLIMITED_USES if value == 0 else value


async def existing_user_id(session: AsyncSession, user_id: int) -> int | None:
    """``user_id`` when a user has it, else ``None``."""
    if not 1 <= user_id <= INT32_MAX:
        return None
    return (await session.exec(select(col(User.id)).where(col(User.id) == user_id))).first()


async def _check_tariff(session: AsyncSession, tariff_id: int | None) -> None:
    if tariff_id is not None and await find_tariff(session, tariff_id) is None:
        raise PromoCodeRuleError(rules.TARIFF_NOT_FOUND)


async def _check_references(session: AsyncSession, draft: Draft, created_by: int | None = None) -> None:
    if draft.promo_group_id is not None and await find_group(session, draft.promo_group_id) is None:
        raise PromoCodeRuleError(rules.GROUP_NOT_FOUND)
    if created_by is not None and await existing_user_id(session, created_by) is None:
        raise PromoCodeRuleError(rules.CREATOR_NOT_FOUND)


async def _ensure_code_free(session: AsyncSession, text: str, promocode_id: int | None = None) -> None:
    query = select(col(PromoCode.id)).where(col(PromoCode.code) == text)
    if promocode_id is not None:
        query = query.where(col(PromoCode.id) != promocode_id)
    if (await session.exec(query.limit(1))).first() is not None:
        raise PromoCodeRuleError(rules.DUPLICATE_CODE)


async def _flush(session: AsyncSession) -> None:
    """Flush; a unique-code violation (a concurrent request took the code) is the rule's 400."""
    try:
        await session.flush()
    except IntegrityError as exc:
        if "code" in str(exc.orig):
            raise PromoCodeRuleError(rules.DUPLICATE_CODE) from exc
        raise


async def create(session: AsyncSession, data: PromoCodeCreateRequest, *, created_by: int | None) -> PromoCode:
    """Add a code after checking its rules, its promo group and creator, and that the text is
    free. ``max_uses: 0`` is unlimited; ``valid_from`` defaults to now."""
    draft = rules.draft_of(
        data, code=rules.normalise_code(data.code), promo_group_id=data.promo_group_id or None
    )
    rules.check(draft)
    await _check_references(session, draft, created_by)
    await _check_tariff(session, data.tariff_id or None)
    await _ensure_code_free(session, draft.code)
    now = utcnow()
    code = PromoCode(
        code=draft.code,
        type=draft.type.value,
        balance_bonus_kopeks=draft.balance_bonus_kopeks,
        subscription_days=draft.subscription_days,
        traffic_gb=draft.traffic_gb,
        max_uses=_stored_max_uses(data.max_uses),
        current_uses=0,
        valid_from=draft.valid_from or now,
        valid_until=draft.valid_until,
        is_active=data.is_active,
        first_purchase_only=data.first_purchase_only,
        promo_group_id=draft.promo_group_id,
        tariff_id=data.tariff_id or None,
        created_by=created_by,
        created_at=now,
        updated_at=now,
    )
    session.add(code)
    await _flush(session)
    return code


def _changes(data: PromoCodeUpdateRequest) -> dict[str, Any]:
    """The stored values the request asks for (null: unchanged, but for the clearable fields)."""
    given = data.model_dump(exclude_unset=True)
    changes = {name: value for name, value in given.items() if value is not None or name in CLEARABLE}
    if "code" in changes:
        changes["code"] = rules.normalise_code(changes["code"])
    if "type" in changes:
        changes["type"] = PromoCodeType(changes["type"]).value
    if "max_uses" in changes:
        changes["max_uses"] = _stored_max_uses(changes["max_uses"])
    for name in ("promo_group_id", "tariff_id"):
        if name in changes:
            changes[name] = changes[name] or None
    return changes


async def update(session: AsyncSession, promocode_id: int, data: PromoCodeUpdateRequest) -> PromoCode:
    """Change the given fields after checking the rules on the code as it would be; the row is
    locked meanwhile. ``updated_at`` moves when anything changed."""
    code = await get(session, promocode_id, for_update=True)
    changes = _changes(data)
    draft = rules.draft_of(code, **{k: v for k, v in changes.items() if k in Draft.__dataclass_fields__})
    rules.check(draft)
    if "max_uses" in changes and changes["max_uses"] < code.current_uses:
        raise PromoCodeRuleError(rules.MAX_USES_BELOW_CURRENT)
    if draft.promo_group_id != code.promo_group_id:
        await _check_references(session, draft)
    if changes.get("tariff_id", code.tariff_id) != code.tariff_id:
        await _check_tariff(session, changes["tariff_id"])
    if draft.code != code.code:
        await _ensure_code_free(session, draft.code, code.id)
    changed = False
    for name, value in changes.items():
        if getattr(code, name) != value:
            setattr(code, name, value)
            changed = True
    if changed:
        code.updated_at = utcnow()
        await _flush(session)
    return code


async def delete(session: AsyncSession, promocode_id: int) -> None:
    """Delete a code and (by the database's cascade) its uses."""
    code = await get(session, promocode_id, for_update=True)
    await session.delete(code)
    await session.flush()


async def detach_group(session: AsyncSession, group_id: int) -> None:
    """A promo group is being deleted: codes that named it stop naming it, and ``promo_group``
    codes for it are switched off (they would grant nothing)."""
    query = select(PromoCode).where(col(PromoCode.promo_group_id) == group_id).with_for_update()
    now = utcnow()
    for code in (await session.exec(query)).all():
        code.promo_group_id = None
        if code.type == PromoCodeType.PROMO_GROUP:
            code.is_active = False
        code.updated_at = now
    await session.flush()
