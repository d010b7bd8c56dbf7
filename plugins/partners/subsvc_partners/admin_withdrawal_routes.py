""" "Cabinet Admin Withdrawals" (`/cabinet/admin/withdrawals`): the requests, approval,
rejection (the money goes back) and completion, each recorded with its administrator."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import sqlalchemy as sa
from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_referrals.api import earned_totals
from subsvc_users.api import User

from subsvc.api import HTTPError, Offset, Query, Router, rubles
from subsvc.auth.principal import Principal
from subsvc.db import page_of
from subsvc_partners import notices, withdrawals
from subsvc_partners.models import WithdrawalRequest
from subsvc_partners.money import PENDING, STATUSES, rub
from subsvc_partners.people import identity, referee_counts, users_by_id
from subsvc_partners.risk import level
from subsvc_partners.schemas import (
    AdminApproveWithdrawalRequest,
    AdminRejectWithdrawalRequest,
    AdminWithdrawalDetailResponse,
    AdminWithdrawalItem,
    AdminWithdrawalListResponse,
)

router = Router(area="cabinet-admin", tag="Cabinet Admin Withdrawals")
BASE = "/cabinet/admin/withdrawals"
Status = Literal["pending", "approved", "rejected", "completed", "cancelled"]
assert set(STATUSES) == set(Status.__args__)  # type: ignore[attr-defined]


def _fields(row: WithdrawalRequest, users: dict[int, User]) -> dict[str, object]:
    return {
        "id": row.id,
        "user_id": row.user_id,
        **identity(users.get(row.user_id)),
        "amount_kopeks": row.amount_kopeks,
        "amount_rubles": rubles(row.amount_kopeks),
        "status": row.status,
        "risk_score": row.risk_score,
        "risk_level": level(row.risk_score),
        "payment_details": row.payment_details,
        "admin_comment": row.admin_comment,
        "created_at": row.created_at,
        "processed_at": row.processed_at,
    }


@router.get(BASE, summary="List Withdrawals", permission="withdrawals:read")
async def list_withdrawals(
    session: AsyncSession,
    status: Annotated[Status | None, Query()] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> AdminWithdrawalListResponse:
    """Requests newest first (optionally of one status), with the pending count and sum."""
    where = [col(WithdrawalRequest.status) == status] if status else []
    order = [col(WithdrawalRequest.id).desc()]
    rows, total = await page_of(session, WithdrawalRequest, where, order, offset, limit)
    pending_count, pending_sum = (
        await session.exec(
            select(func.count(), sa.func.coalesce(sa.func.sum(WithdrawalRequest.amount_kopeks), 0)).where(
                col(WithdrawalRequest.status) == PENDING
            )
        )
    ).one()
    users = await users_by_id(session, [r.user_id for r in rows])
    return AdminWithdrawalListResponse(
        items=[AdminWithdrawalItem.model_validate(_fields(r, users)) for r in rows],
        total=total,
        pending_count=pending_count,
        pending_total_kopeks=int(pending_sum),
    )


@router.get(
    f"{BASE}/{{withdrawal_id}}",
    summary="Get Withdrawal Detail",
    permission="withdrawals:read",
    responses={404: withdrawals.NOT_FOUND},
)
async def get_withdrawal_detail(session: AsyncSession, withdrawal_id: int) -> AdminWithdrawalDetailResponse:
    """One request with its risk analysis and the user's figures."""
    row = await session.get(WithdrawalRequest, withdrawal_id)
    if row is None:
        raise HTTPError(404, withdrawals.NOT_FOUND)
    users = await users_by_id(session, [row.user_id])
    user = users.get(row.user_id)
    referees = (await referee_counts(session, [row.user_id])).get(row.user_id, (0, 0, 0))
    return AdminWithdrawalDetailResponse.model_validate(
        {
            **_fields(row, users),
            "risk_analysis": json.loads(row.risk_analysis or "{}"),
            "balance_kopeks": user.balance_kopeks if user is not None else 0,
            "total_referrals": referees[0],
            "total_earnings_kopeks": (await earned_totals(session, [row.user_id])).get(row.user_id, 0),
        }
    )


@router.post(
    f"{BASE}/{{withdrawal_id}}/approve",
    summary="Approve Withdrawal",
    permission="withdrawals:approve",
    response_model=dict[str, bool],
    responses={400: withdrawals.ALREADY_PROCESSED},
)
async def approve_withdrawal(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    withdrawal_id: int,
    payload: AdminApproveWithdrawalRequest,
) -> dict[str, bool]:
    """Approve a pending request (its money stays reserved until it is paid out); the user is told."""
    row = await withdrawals.approve(session, withdrawal_id, principal.id, payload.comment)
    text = f"✅ Заявка на вывод #{row.id} на {rub(row.amount_kopeks)} ₽ одобрена."
    notices.to_user(request.app, session, row.user_id, text)
    return {"success": True}


@router.post(
    f"{BASE}/{{withdrawal_id}}/reject",
    summary="Reject Withdrawal",
    permission="withdrawals:reject",
    response_model=dict[str, bool],
    responses={400: withdrawals.ALREADY_PROCESSED},
)
async def reject_withdrawal(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    withdrawal_id: int,
    payload: AdminRejectWithdrawalRequest,
) -> dict[str, bool]:
    """Reject a pending request; its reserved money goes back to the balance; the user is told."""
    row = await withdrawals.reject(session, request.app, withdrawal_id, principal.id, payload.comment)
    reason = f" Причина: {payload.comment}" if payload.comment else ""
    text = f"❌ Заявка на вывод #{row.id} отклонена, {rub(row.amount_kopeks)} ₽ возвращены на баланс.{reason}"
    notices.to_user(request.app, session, row.user_id, text)
    return {"success": True}


@router.post(
    f"{BASE}/{{withdrawal_id}}/complete",
    summary="Complete Withdrawal",
    permission="withdrawals:approve",
    response_model=dict[str, bool],
    responses={400: withdrawals.NOT_APPROVED},
)
async def complete_withdrawal(
    request: Request, session: AsyncSession, principal: Principal, withdrawal_id: int
) -> dict[str, bool]:
    """Mark an approved request paid out; the reserve becomes final; the user is told."""
    row = await withdrawals.complete(session, withdrawal_id, principal.id, None)
    text = f"💸 Выплата по заявке #{row.id}: {rub(row.amount_kopeks)} ₽ отправлена."
    notices.to_user(request.app, session, row.user_id, text)
    return {"success": True}
