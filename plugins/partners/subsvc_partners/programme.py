"""The partner programme's state machine: ``none|rejected --apply--> pending --approve-->
approved --revoke--> none``, ``pending --reject--> rejected``. A user's standing is the row in
``partners`` (none: ``none``); it and the application change together, each by one conditional
UPDATE from the state it expects, so two administrators cannot both decide one application."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_campaigns.api import unassign_partner
from subsvc_users.api import User, touch

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc_partners.models import Partner, PartnerApplication

NONE, PENDING, APPROVED, REJECTED = "none", "pending", "approved", "rejected"
USER_NOT_FOUND = "Пользователь не найден"
ALREADY_PARTNER = "Вы уже являетесь партнёром"
PENDING_EXISTS = "У вас уже есть заявка на рассмотрении"
APPLICATION_NOT_FOUND = "Заявка не найдена"
ALREADY_PROCESSED = "Заявка уже обработана"
NOT_A_PARTNER = "Пользователь не является партнёром"


async def partner_of(session: AsyncSession, user_id: int) -> Partner | None:
    """The user's partner row (``None``: status ``none``)."""
    return await session.get(Partner, user_id, populate_existing=True)


async def status_of(session: AsyncSession, user_id: int) -> str:
    row = await partner_of(session, user_id)
    return row.status if row is not None else NONE


async def latest_application(session: AsyncSession, user_id: int) -> PartnerApplication | None:
    query = (
        select(PartnerApplication)
        .where(col(PartnerApplication.user_id) == user_id)
        .order_by(col(PartnerApplication.id).desc())
        .limit(1)
    )
    return (await session.exec(query)).first()


async def _set_status(session: AsyncSession, user_id: int, status: str, percent: int | None) -> None:
    values = {"status": status, "commission_percent": percent, "updated_at": utcnow()}
    change = update(Partner).where(col(Partner.user_id) == user_id).values(**values)
    if (await session.exec(change)).rowcount:
        return
    try:
        async with session.begin_nested():
            await session.exec(insert(Partner).values(user_id=user_id, **values))
    except IntegrityError:
        await session.exec(change)


async def apply(session: AsyncSession, user_id: int, fields: dict[str, Any]) -> PartnerApplication:
    """A new pending application; the user's row is locked so two applications never both land."""
    await touch(session, user_id)
    if await session.get(User, user_id) is None:
        raise HTTPError(400, USER_NOT_FOUND)
    status = await status_of(session, user_id)
    if status == APPROVED:
        raise HTTPError(400, ALREADY_PARTNER)
    if status == PENDING:
        raise HTTPError(400, PENDING_EXISTS)
    application = PartnerApplication(user_id=user_id, status=PENDING, **fields)
    session.add(application)
    await _set_status(session, user_id, PENDING, None)
    await session.flush()
    return application


async def decide(
    session: AsyncSession,
    application_id: int,
    admin_id: int,
    approved: bool,
    percent: int | None,
    comment: str | None,
) -> PartnerApplication:
    """Approve (with the individual percent) or reject a pending application."""
    values: dict[str, Any] = {
        "status": APPROVED if approved else REJECTED,
        "admin_comment": comment,
        "approved_commission_percent": percent if approved else None,
        "processed_by": admin_id,
        "processed_at": utcnow(),
    }
    statement = (
        update(PartnerApplication)
        .where(col(PartnerApplication.id) == application_id, col(PartnerApplication.status) == PENDING)
        .values(**values)
    )
    if not (await session.exec(statement)).rowcount:
        found = await session.get(PartnerApplication, application_id)
        raise HTTPError(400, APPLICATION_NOT_FOUND if found is None else ALREADY_PROCESSED)
    application = await session.get(PartnerApplication, application_id, populate_existing=True)
    assert application is not None
    if await session.get(User, application.user_id) is None:
        raise HTTPError(400, USER_NOT_FOUND)
    await _set_status(session, application.user_id, values["status"], percent if approved else None)
    return application


async def require_partner(session: AsyncSession, user_id: int, *, missing: int = 404) -> Partner:
    """The approved partner row, or the error the admin operations answer."""
    if await session.get(User, user_id) is None:
        raise HTTPError(missing, USER_NOT_FOUND)
    row = await partner_of(session, user_id)
    if row is None or row.status != APPROVED:
        raise HTTPError(400, NOT_A_PARTNER)
    return row


async def set_commission(session: AsyncSession, user_id: int, percent: int) -> None:
    await require_partner(session, user_id)
    await session.exec(
        update(Partner)
        .where(col(Partner.user_id) == user_id)
        .values(commission_percent=percent, updated_at=utcnow())
    )


async def revoke(session: AsyncSession, user_id: int) -> None:
    """Back to ``none``, the individual percent dropped and every campaign unassigned; referees
    keep their referrer."""
    await require_partner(session, user_id, missing=400)
    await _set_status(session, user_id, NONE, None)
    await unassign_partner(session, user_id)
