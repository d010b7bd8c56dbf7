"""Withdrawal requests: a request takes its amount out of the balance at once (a
``withdrawal_reserve`` transaction), so it cannot be spent twice; rejection or cancellation gives
it back (``withdrawal_release``); completion finalises it (the money has left). Every change of
status is one conditional UPDATE from the status it expects (two admins, or an admin and the
user, cannot both move a request) and leaves an audit row.

``pending -> approved -> completed``, ``pending -> rejected``, ``pending -> cancelled``.
"""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import InsufficientBalance, move_balance
from subsvc_users.api import touch

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_partners import risk
from subsvc_partners.config import PartnerConfig, partner_config
from subsvc_partners.models import WithdrawalAudit, WithdrawalRequest
from subsvc_partners.money import APPROVED, COMPLETED, HOLDING, PENDING, Standing, rub, standing
from subsvc_partners.settings import PartnersSettings

RESERVE, RELEASE = "withdrawal_reserve", "withdrawal_release"
DISABLED = "Функция вывода реферального баланса отключена"
NOT_FOUND = "Заявка не найдена"
ALREADY_PROCESSED = "Заявка уже обработана"
NOT_APPROVED = 'Заявка не в статусе "одобрена"'
ONLY_PENDING_CANCEL = "Можно отменить только заявку в ожидании"
ACTIVE_EXISTS = "У вас уже есть активная заявка на рассмотрении"


def available(config: PartnerConfig, settings: PartnersSettings, money: Standing) -> int:
    """What the user may withdraw now."""
    return money.available_referral if settings.REFERRAL_WITHDRAWAL_ONLY_REFERRAL_BALANCE else money.balance


async def refusal(
    session: AsyncSession, app: Starlette, config: PartnerConfig, user_id: int, money: Standing, enabled: bool
) -> str | None:
    """Why the user cannot ask for a withdrawal now (``None``: they can)."""
    if not enabled:
        return DISABLED
    amount = available(config, PartnersSettings.of(app), money)
    if amount < config.withdrawal_min_amount_kopeks:
        return (
            f"Минимальная сумма вывода: {rub(config.withdrawal_min_amount_kopeks)}₽. Доступно: {rub(amount)}₽"
        )
    if config.withdrawal_cooldown_days > 0:
        last = (
            await session.exec(
                select(WithdrawalRequest.completed_at)
                .where(col(WithdrawalRequest.user_id) == user_id, col(WithdrawalRequest.status) == COMPLETED)
                .order_by(col(WithdrawalRequest.completed_at).desc())
                .limit(1)
            )
        ).first()
        if last is not None:
            left = last + timedelta(days=config.withdrawal_cooldown_days) - utcnow()
            if left > timedelta(0):
                return f"Следующий запрос на вывод будет доступен через {left.days + 1} дн."
    active = await session.exec(
        select(WithdrawalRequest.id)
        .where(col(WithdrawalRequest.user_id) == user_id, col(WithdrawalRequest.status).in_(HOLDING))
        .limit(1)
    )
    return ACTIVE_EXISTS if active.first() is not None else None


def _audit(
    session: AsyncSession,
    request: WithdrawalRequest,
    before: str | None,
    actor_id: int | None,
    comment: str | None,
    transaction_id: int | None,
) -> None:
    assert request.id is not None
    session.add(
        WithdrawalAudit(
            request_id=request.id,
            from_status=before,
            to_status=request.status,
            actor_id=actor_id,
            comment=comment,
            transaction_id=transaction_id,
        )
    )


async def create(
    session: AsyncSession, app: Starlette, user_id: int, amount: int, details: str, *, enabled: bool
) -> WithdrawalRequest:
    """A pending request holding ``amount`` of the user's balance, or 400 with why not. The
    user's row is locked first: a second request of the same user waits and then sees this one."""
    await touch(session, user_id)
    config = await partner_config(app)
    settings = PartnersSettings.of(app)
    money = await standing(session, user_id)
    reason = await refusal(session, app, config, user_id, money, enabled)
    if reason is not None:
        raise HTTPError(400, reason)
    limit = available(config, settings, money)
    if amount > limit:
        if settings.REFERRAL_WITHDRAWAL_ONLY_REFERRAL_BALANCE:
            raise HTTPError(400, f"Недостаточно реферального баланса. Доступно: {rub(limit)}₽")
        raise HTTPError(400, f"Недостаточно средств. Доступно: {rub(limit)}₽")
    score, analysis = await risk.analyse(session, settings, user_id, money)
    request = WithdrawalRequest(
        user_id=user_id,
        amount_kopeks=amount,
        status=PENDING,
        payment_details=details,
        risk_score=score,
        risk_analysis=json.dumps(analysis, ensure_ascii=False),
    )
    session.add(request)
    await session.flush()
    try:
        request.reserve_transaction_id, _ = await move_balance(
            session,
            services(app).events,
            user_id,
            -amount,
            type=RESERVE,
            description=f"Заявка на вывод #{request.id}: резерв",
        )
    except InsufficientBalance:
        raise HTTPError(400, f"Недостаточно средств. Доступно: {rub(money.balance)}₽") from None
    _audit(session, request, None, user_id, None, request.reserve_transaction_id)
    return request


async def _move(
    session: AsyncSession,
    request_id: int,
    before: str,
    after: str,
    actor_id: int,
    comment: str | None,
    *,
    owner_id: int | None = None,
) -> WithdrawalRequest | None:
    """Move the request from ``before`` to ``after`` in one conditional UPDATE; ``None`` when
    it is not (or no longer) in ``before``."""
    now = utcnow()
    values: dict[str, object] = {"status": after}
    if owner_id is None:
        values |= {"processed_by": actor_id, "processed_at": now}
        if comment is not None:
            values["admin_comment"] = comment
    if after == COMPLETED:
        values["completed_at"] = now
    statement = update(WithdrawalRequest).where(
        col(WithdrawalRequest.id) == request_id, col(WithdrawalRequest.status) == before
    )
    if owner_id is not None:
        statement = statement.where(col(WithdrawalRequest.user_id) == owner_id)
    if not (await session.exec(statement.values(**values))).rowcount:
        return None
    return await session.get(WithdrawalRequest, request_id, populate_existing=True)


async def _release(session: AsyncSession, app: Starlette, request: WithdrawalRequest) -> int:
    """Give the request's amount back to the balance; the transaction's id."""
    transaction_id, _ = await move_balance(
        session,
        services(app).events,
        request.user_id,
        request.amount_kopeks,
        type=RELEASE,
        description=f"Заявка на вывод #{request.id}: возврат резерва ({request.status})",
        topup=False,
    )
    request.release_transaction_id = transaction_id
    return transaction_id


async def cancel(session: AsyncSession, app: Starlette, user_id: int, request_id: int) -> None:
    """The user withdraws their pending request; its money comes back."""
    request = await _move(session, request_id, PENDING, "cancelled", user_id, None, owner_id=user_id)
    if request is None:
        mine = await session.get(WithdrawalRequest, request_id)
        if mine is None or mine.user_id != user_id:
            raise HTTPError(404, NOT_FOUND)
        raise HTTPError(400, ONLY_PENDING_CANCEL)
    _audit(session, request, PENDING, user_id, None, await _release(session, app, request))


async def _decide(
    session: AsyncSession, request_id: int, before: str, after: str, admin_id: int, comment: str | None
) -> WithdrawalRequest:
    """An administrator moves the request from ``before`` to ``after``; 400 when there is no
    such request, or it is not (or no longer) in ``before``."""
    request = await _move(session, request_id, before, after, admin_id, comment)
    if request is not None:
        return request
    if await session.get(WithdrawalRequest, request_id) is None:
        raise HTTPError(400, NOT_FOUND)
    raise HTTPError(400, ALREADY_PROCESSED if before == PENDING else NOT_APPROVED)


async def approve(
    session: AsyncSession, request_id: int, admin_id: int, comment: str | None
) -> WithdrawalRequest:
    """``pending -> approved``: the money stays reserved until it is paid out."""
    request = await _decide(session, request_id, PENDING, APPROVED, admin_id, comment)
    _audit(session, request, PENDING, admin_id, comment, None)
    return request


async def reject(
    session: AsyncSession, app: Starlette, request_id: int, admin_id: int, comment: str | None
) -> WithdrawalRequest:
    """``pending -> rejected``: the reserved money goes back to the balance."""
    request = await _decide(session, request_id, PENDING, "rejected", admin_id, comment)
    _audit(session, request, PENDING, admin_id, comment, await _release(session, app, request))
    return request


async def complete(
    session: AsyncSession, request_id: int, admin_id: int, comment: str | None
) -> WithdrawalRequest:
    """``approved -> completed``: the money was paid out; the reserve is final."""
    request = await _decide(session, request_id, APPROVED, COMPLETED, admin_id, comment)
    _audit(session, request, APPROVED, admin_id, comment, None)
    return request
