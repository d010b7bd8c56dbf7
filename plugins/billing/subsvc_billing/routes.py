"""Web API (X-API-Key): `POST /users/{user_id}/balance`, `POST /users/{user_id}/deposit` (tag
`users`) and `GET /transactions` (tag `transactions`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import PathId, UserResponse, get_user, record_columns, record_rows, records_from_rows

from subsvc.api import BigInt, HTTPError, Query, Router, from_attributes
from subsvc.api.pagination import Limit, Offset, Page
from subsvc.events import EventBus
from subsvc.services import services
from subsvc_billing import service
from subsvc_billing.schemas import (
    DEFAULT_ADJUSTMENT_DESCRIPTION,
    DEFAULT_DEPOSIT_DESCRIPTION,
    BalanceUpdateRequest,
    DepositRequest,
    DepositResponse,
    TransactionResponse,
)
from subsvc_billing.settings import BillingSettings

users = Router(area="web", tag="users")
transactions = Router(area="web", tag="transactions")

BALANCE = "users:balance"
PAYMENTS_READ = "payments:read"


def _as_utc(value: datetime) -> datetime:
    """A date-time without an offset is taken as UTC (the reference accepted those)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


QueryDatetime = Annotated[datetime, AfterValidator(_as_utc)]


def _events(request: Request) -> EventBus:
    return services(request.app).events


def _settings(request: Request) -> BillingSettings:
    return BillingSettings.of(request.app)


@users.post(
    "/users/{user_id}/balance",
    permission=BALANCE,
    responses={400: "Amount must be non-zero, or Insufficient balance", 404: "User not found"},
)
async def update_balance(
    request: Request, session: AsyncSession, user_id: BigInt, payload: BalanceUpdateRequest
) -> UserResponse:
    """Credit (positive `amount_kopeks`) or debit (negative) the balance; answers the user.

    A debit larger than the balance is refused with 400 and changes nothing. With
    `create_transaction` (default) a manual `deposit` or `withdrawal` transaction is recorded
    and `transaction.created` (plus `payment.completed` for a credit) is published.
    """
    if payload.amount_kopeks == 0:
        raise HTTPError(400, "Amount must be non-zero")
    description = DEFAULT_ADJUSTMENT_DESCRIPTION if payload.description is None else payload.description
    columns = record_columns(request.app, session)
    try:
        change = await service.adjust_balance(
            session,
            _events(request),
            PathId(user_id),  # resolved inside the UPDATE: no read of the user before it
            payload.amount_kopeks,
            description=description,
            create_transaction=payload.create_transaction,
            record_columns=columns,
        )
    except service.InsufficientBalance:
        await get_user(session, user_id)  # 404 when the id names nobody
        raise HTTPError(400, "Insufficient balance") from None
    if change.record is not None:
        rows: Sequence[Mapping[str, Any]] = [change.record]
    else:
        rows = await record_rows(session, [change.user_id], columns)
    return (await records_from_rows(request, session, rows))[0]


@users.post(
    "/users/{user_id}/deposit",
    permission=BALANCE,
    responses={
        400: "Amount above WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS",
        404: "User not found",
        409: "Idempotency key already used for another user, amount or operation",
    },
)
async def deposit_balance(
    request: Request, session: AsyncSession, user_id: BigInt, payload: DepositRequest
) -> DepositResponse:
    """Credit the balance as a real payment (a completed manual `deposit` transaction).

    An `idempotency_key` makes retries safe: the same key again answers the first outcome
    with `duplicate: true` and moves no money; used for another user or amount it is 409.
    Amounts above `WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS` (0 = no limit) are refused with 400.
    """
    limit = _settings(request).WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS
    if limit and payload.amount_kopeks > limit:
        raise HTTPError(
            400,
            f"Amount {payload.amount_kopeks} kopeks exceeds the manual deposit limit of {limit} kopeks "
            "(WEB_API_MANUAL_DEPOSIT_MAX_KOPEKS)",
        )
    user = await get_user(session, user_id)
    try:
        change = await service.deposit(
            session,
            _events(request),
            user,
            payload.amount_kopeks,
            idempotency_key=payload.idempotency_key,
            description=payload.description or DEFAULT_DEPOSIT_DESCRIPTION,
            notify_user=payload.notify_user,
            apply_topup_bonuses=payload.apply_topup_bonuses,
        )
    except service.IdempotencyConflict as conflict:
        raise HTTPError(409, str(conflict)) from None
    return from_attributes(
        DepositResponse, change, messenger_id=user.messenger_id, amount_kopeks=payload.amount_kopeks
    )


@transactions.get("/transactions", permission=PAYMENTS_READ)
async def list_transactions(
    session: AsyncSession,
    limit: Limit = 50,
    offset: Offset = 0,
    user_id: int | None = None,
    transaction_type: Annotated[str | None, Query(alias="type")] = None,
    payment_method: str | None = None,
    is_completed: bool | None = None,
    date_from: QueryDatetime | None = None,
    date_to: QueryDatetime | None = None,
) -> Page[TransactionResponse]:
    """Transactions, newest first, filtered by internal user id, type, payment method,
    completion and creation time (`date_from` and `date_to` inclusive; a time without an
    offset is UTC)."""
    filters = service.TransactionFilter(
        user_id=user_id,
        type=transaction_type,
        payment_method=payment_method,
        is_completed=is_completed,
        date_from=date_from,
        date_to=date_to,
    )
    total, rows = await service.list_transactions(session, filters, limit, offset)
    items = [TransactionResponse.model_validate(row) for row in rows]
    return Page[TransactionResponse](items=items, total=total, limit=limit, offset=offset)
