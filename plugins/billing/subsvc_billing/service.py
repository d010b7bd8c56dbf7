"""The rules of balances and transactions; no HTTP in here.

A balance changes in one conditional UPDATE (``... WHERE id = :id AND balance_kopeks + :delta
>= 0 RETURNING ...``), never by reading and writing it back, so concurrent changes neither
get lost nor take a balance below zero. The transaction row and the events are added to the
caller's session: they are committed together with the balance change, or not at all.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import BigInteger, Insert, Integer, Select, Update, bindparam, func, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import RECORD_COLUMNS, USERS, Columns, PathId, User, path_id_subquery, record_select

from subsvc.api import from_attributes, rubles
from subsvc.db import utcnow
from subsvc.events import EventBus
from subsvc_billing.models import DEPOSIT, MANUAL, WITHDRAWAL, Transaction
from subsvc_billing.schemas import TransactionEvent

TRANSACTIONS = SQLModel.metadata.tables[Transaction.__tablename__]
PAYMENT_COMPLETED = "payment.completed"
TRANSACTION_CREATED = "transaction.created"


class InsufficientBalance(Exception):
    """A debit larger than the balance; nothing was changed."""


class IdempotencyConflict(Exception):
    """An idempotency key already used for a different deposit (the message says how)."""


UserTarget = User | int | PathId
"""A user whose balance changes: the row object, its internal id, or an id from a URL path
(resolved inside the UPDATE, with no read before it)."""


@dataclass(frozen=True)
class BalanceChange:
    """The user changed, the balance before and after, the id of the transaction recorded, and
    the user's record row (:func:`~subsvc_users.records.record_select`) where the change's
    statement returned it."""

    user_id: int
    old_balance_kopeks: int
    new_balance_kopeks: int
    transaction_id: int | None
    duplicate: bool = False
    record: Mapping[str, Any] | None = None


@functools.cache
def _balance_update(
    credit: bool,
    by_path_id: bool,
    returning: tuple[str, ...] = ("id", "balance_kopeks"),
    *,
    topup: bool = True,
) -> Update:
    """``UPDATE users SET balance_kopeks = balance_kopeks + :delta ... WHERE id = <target> AND
    balance_kopeks + :delta >= 0 RETURNING id, balance_kopeks`` (or the columns named in
    ``returning``), built once per variant."""
    delta = bindparam("delta", type_=BigInteger)
    values: dict[str, Any] = {
        "balance_kopeks": USERS.c.balance_kopeks + delta,
        "updated_at": bindparam("now"),
    }
    if credit and topup:
        values["has_made_first_topup"] = True
    target = path_id_subquery() if by_path_id else bindparam("user_id", type_=Integer)
    return (
        update(USERS)
        .where(USERS.c.id == target, USERS.c.balance_kopeks + delta >= 0)
        .values(values)
        .returning(*(USERS.c[name] for name in returning))
    )


def _change_parameters(user: UserTarget, delta: int, now: datetime) -> dict[str, Any]:
    """The parameters of :func:`_balance_update` for ``user``; raises
    :class:`InsufficientBalance` for a path id no user can have."""
    parameters: dict[str, Any] = {"delta": delta, "now": now}
    if isinstance(user, PathId):
        found = user.parameters()
        if found is None:
            raise InsufficientBalance
        parameters.update(found)
    else:
        parameters["user_id"] = user.id if isinstance(user, User) else user
    return parameters


async def change_balance(
    session: AsyncSession, user: UserTarget, delta: int, *, topup: bool = True
) -> tuple[int, int]:
    """Add ``delta`` kopeks to a user's balance in one conditional UPDATE; returns the user's
    id and new balance. A credit also marks ``has_made_first_topup`` unless ``topup`` is
    false (a bonus, which is no top-up). A ``User`` object passed in is brought up to date.

    Raises :class:`InsufficientBalance` when the balance would go below zero (or, for a
    :class:`PathId`, when it names no user: the caller tells the two apart).
    """
    now = utcnow()
    statement = _balance_update(delta > 0, isinstance(user, PathId), topup=topup)
    parameters = _change_parameters(user, delta, now)
    row = (await session.exec(statement, params=parameters)).first()
    if row is None:
        raise InsufficientBalance
    user_id, balance = row
    if isinstance(user, User):
        set_committed_value(user, "balance_kopeks", balance)
        set_committed_value(user, "updated_at", now)
        if delta > 0 and topup:
            set_committed_value(user, "has_made_first_topup", True)
    return user_id, balance


@functools.cache
def _transaction_insert() -> Insert:
    return insert(TRANSACTIONS).returning(TRANSACTIONS.c.id)


_RECORDED = ("type", "amount_kopeks", "description", "payment_method", "external_id")
_INSERTED = ("user_id", "balance_after_kopeks", *_RECORDED, "is_completed", "created_at", "completed_at")
"""The columns a recorded change writes (its id comes from the database)."""


TRANSACTION_ID = "transaction_id"


@functools.cache
def _balance_change_recorded(credit: bool, by_path_id: bool, columns: Columns, topup: bool) -> Select[Any]:
    """PostgreSQL: :func:`_balance_update`, the transaction's INSERT and the user's record (with
    ``columns``) as one statement, ``WITH changed AS (UPDATE users ... RETURNING <record
    columns>), recorded AS (INSERT INTO transactions ... SELECT ... FROM changed RETURNING id,
    user_id) SELECT <record of changed>, recorded.id AS transaction_id ...``: no row when the
    UPDATE changed none."""
    changed = _balance_update(credit, by_path_id, RECORD_COLUMNS, topup=topup).cte("changed")
    now: sa.BindParameter[datetime] = bindparam("now")
    selected = sa.select(
        changed.c.id,
        changed.c.balance_kopeks,
        *(bindparam(f"t_{name}", type_=TRANSACTIONS.c[name].type) for name in _RECORDED),
        sa.true(),
        now,
        now,
    )
    recorded = (
        insert(TRANSACTIONS)
        .from_select(_INSERTED, selected)
        .returning(TRANSACTIONS.c.id, TRANSACTIONS.c.user_id)
        .cte("recorded")
    )
    return (
        record_select(changed, columns)
        .add_columns(recorded.c.id.label(TRANSACTION_ID))
        .join(recorded, recorded.c.user_id == changed.c.id)
    )


@dataclass(frozen=True)
class Recorded:
    """What a transaction records besides its user and the balance it leaves."""

    type: str
    amount_kopeks: int
    description: str | None
    payment_method: str | None
    external_id: str | None = None
    notify_user: bool = False
    apply_topup_bonuses: bool = False

    def row(self, user_id: int, balance: int, now: datetime) -> dict[str, Any]:
        """The transaction's columns (:data:`_INSERTED`; its id comes from the database)."""
        recorded = (getattr(self, name) for name in _RECORDED)
        return dict(zip(_INSERTED, (user_id, balance, *recorded, True, now, now), strict=True))

    def event(self, transaction_id: int, user_id: int, balance: int, now: datetime) -> TransactionEvent:
        """The payload of ``transaction.created`` (and ``payment.completed``)."""
        return from_attributes(
            TransactionEvent,
            self,
            transaction_id=transaction_id,
            user_id=user_id,
            amount_rubles=rubles(self.amount_kopeks),
            is_completed=True,
            created_at=now,
            new_balance_kopeks=balance,
        )


def _publish(
    session: AsyncSession,
    events: EventBus,
    recorded: Recorded,
    payload: TransactionEvent,
    *,
    payment: bool = True,
) -> None:
    """``transaction.created`` (and ``payment.completed`` for a deposit that is a ``payment``)
    in the session's transaction."""
    if payment and recorded.type == DEPOSIT:
        events.publish(session, PAYMENT_COMPLETED, payload)
    events.publish(session, TRANSACTION_CREATED, payload)


async def record_transaction(
    session: AsyncSession,
    events: EventBus,
    *,
    user_id: int,
    type: str,
    amount_kopeks: int,
    new_balance_kopeks: int,
    description: str | None,
    payment_method: str | None,
    external_id: str | None = None,
    notify_user: bool = False,
    apply_topup_bonuses: bool = False,
) -> int:
    """Insert a completed transaction (a duplicate ``external_id`` raises ``IntegrityError``
    here) and publish ``transaction.created`` (and ``payment.completed`` for a deposit) in
    the same database transaction; returns its id."""
    recorded = Recorded(
        type, amount_kopeks, description, payment_method, external_id, notify_user, apply_topup_bonuses
    )
    return await _insert_transaction(session, events, recorded, user_id, new_balance_kopeks)


async def _insert_transaction(
    session: AsyncSession,
    events: EventBus,
    recorded: Recorded,
    user_id: int,
    balance: int,
    *,
    payment: bool = True,
) -> int:
    """Insert the transaction and publish it (a transfer's deposit is no ``payment``)."""
    now = utcnow()
    params = recorded.row(user_id, balance, now)
    transaction_id: int = (await session.exec(_transaction_insert(), params=params)).scalar_one()
    _publish(
        session, events, recorded, recorded.event(transaction_id, user_id, balance, now), payment=payment
    )
    return transaction_id


async def change_balance_recorded(
    session: AsyncSession,
    events: EventBus,
    user: UserTarget,
    delta: int,
    recorded: Recorded,
    record_columns: Columns = (),
    *,
    topup: bool = True,
) -> BalanceChange:
    """:func:`change_balance` and :func:`record_transaction` of its outcome. On PostgreSQL both
    are one statement, which also returns the user's record row (with ``record_columns``).

    Raises :class:`InsufficientBalance` as :func:`change_balance` does.
    """
    if session.get_bind().dialect.name != "postgresql" or isinstance(user, User):
        user_id, balance = await change_balance(session, user, delta, topup=topup)
        transaction_id = await _insert_transaction(session, events, recorded, user_id, balance)
        return BalanceChange(user_id, balance - delta, balance, transaction_id)
    now = utcnow()
    params = _change_parameters(user, delta, now)
    params.update({f"t_{name}": getattr(recorded, name) for name in _RECORDED})
    statement = _balance_change_recorded(delta > 0, isinstance(user, PathId), record_columns, topup)
    row = (await session.exec(statement, params=params)).mappings().first()  # type: ignore[call-overload]
    if row is None:
        raise InsufficientBalance
    transaction_id, user_id, balance = row[TRANSACTION_ID], row["id"], row["balance_kopeks"]
    _publish(session, events, recorded, recorded.event(transaction_id, user_id, balance, now))
    return BalanceChange(user_id, balance - delta, balance, transaction_id, record=row)


async def move_balance(
    session: AsyncSession,
    events: EventBus,
    user: UserTarget,
    delta: int,
    *,
    type: str,
    description: str | None,
    payment_method: str | None = None,
    external_id: str | None = None,
    topup: bool = True,
    notify_user: bool = False,
    apply_topup_bonuses: bool = False,
) -> tuple[int, int]:
    """Add ``delta`` kopeks (negative: a debit) to a user's balance and record it as a completed
    ``type`` transaction of ``abs(delta)``, published as :func:`record_transaction` does (on
    PostgreSQL one statement for a user given by id); the transaction's id and the new balance.
    ``topup`` as in :func:`change_balance`; a duplicate ``external_id`` raises ``IntegrityError``.

    Raises :class:`InsufficientBalance` for a debit larger than the balance or an unknown user.
    """
    recorded = Recorded(
        type, abs(delta), description, payment_method, external_id, notify_user, apply_topup_bonuses
    )
    change = await change_balance_recorded(session, events, user, delta, recorded, topup=topup)
    assert change.transaction_id is not None  # recorded above
    return change.transaction_id, change.new_balance_kopeks


async def adjust_balance(
    session: AsyncSession,
    events: EventBus,
    user: UserTarget,
    amount_kopeks: int,
    *,
    description: str | None,
    create_transaction: bool = True,
    record_columns: Columns = (),
) -> BalanceChange:
    """A manual credit (positive) or debit (negative): a ``deposit`` or ``withdrawal``
    transaction with method ``manual``, the amount stored positive; none when
    ``create_transaction`` is false (then no event either). ``record_columns``: see
    :func:`change_balance_recorded`.

    Raises :class:`InsufficientBalance` for a debit larger than the balance.
    """
    if amount_kopeks == 0:
        raise ValueError("amount_kopeks must be non-zero")
    if not create_transaction:
        user_id, balance = await change_balance(session, user, amount_kopeks)
        return BalanceChange(user_id, balance - amount_kopeks, balance, None)
    kind = DEPOSIT if amount_kopeks > 0 else WITHDRAWAL
    recorded = Recorded(kind, abs(amount_kopeks), description, MANUAL)
    return await change_balance_recorded(session, events, user, amount_kopeks, recorded, record_columns)


async def find_manual_payment(session: AsyncSession, external_id: str) -> Transaction | None:
    """The ``manual`` transaction carrying this external id (an idempotency key), if any."""
    query = select(Transaction).where(
        col(Transaction.payment_method) == MANUAL, col(Transaction.external_id) == external_id
    )
    return (await session.exec(query)).first()


def _replay(user: User, transaction: Transaction, amount_kopeks: int) -> BalanceChange:
    """The first outcome of a deposit whose idempotency key comes again; no money moves."""
    if transaction.user_id != user.id:
        raise IdempotencyConflict("Idempotency key was already used for a deposit to another user")
    if transaction.type != DEPOSIT or transaction.amount_kopeks != amount_kopeks:
        raise IdempotencyConflict(
            f"Idempotency key was already used for a deposit of {transaction.amount_kopeks} kopeks"
            if transaction.type == DEPOSIT
            else "Idempotency key was already used for another operation"
        )
    new_balance = transaction.balance_after_kopeks
    if new_balance is None:  # recorded by something that did not note the balance
        new_balance = old_balance = user.balance_kopeks
    else:
        old_balance = new_balance - transaction.amount_kopeks
    assert user.id is not None
    return BalanceChange(user.id, old_balance, new_balance, transaction.id, duplicate=True)


async def deposit(
    session: AsyncSession,
    events: EventBus,
    user: User,
    amount_kopeks: int,
    *,
    idempotency_key: str | None,
    description: str,
    notify_user: bool,
    apply_topup_bonuses: bool,
) -> BalanceChange:
    """Credit a user as a real payment: a completed ``deposit`` transaction, method
    ``manual``, whose ``external_id`` is the idempotency key.

    A key seen before answers the first outcome (``duplicate=True``) and moves no money; two
    concurrent requests with one key are settled by the unique ``(payment_method,
    external_id)``: the loser rolls back its session and answers the winner's outcome.
    Raises :class:`IdempotencyConflict` when the key belongs to a different deposit.
    """
    if amount_kopeks <= 0:
        raise ValueError("a deposit must be positive")
    user_id = user.id
    assert user_id is not None
    if idempotency_key is not None:
        existing = await find_manual_payment(session, idempotency_key)
        if existing is not None:
            return _replay(user, existing, amount_kopeks)
    recorded = Recorded(
        DEPOSIT, amount_kopeks, description, MANUAL, idempotency_key, notify_user, apply_topup_bonuses
    )
    try:
        return await change_balance_recorded(session, events, user, amount_kopeks, recorded)
    except IntegrityError:
        if idempotency_key is None:
            raise
        await session.rollback()  # undoes this request's credit too
        existing = await find_manual_payment(session, idempotency_key)
        if existing is None:
            raise
        current = await session.get(User, user_id, populate_existing=True)
        assert current is not None
        return _replay(current, existing, amount_kopeks)


@dataclass(frozen=True)
class TransactionFilter:
    """The filters of the transaction list; ``None`` means "any"."""

    user_id: int | None = None
    type: str | None = None
    payment_method: str | None = None
    is_completed: bool | None = None
    date_from: datetime | None = None
    date_to: datetime | None = None

    def conditions(self) -> list[Any]:
        found: list[Any] = []
        if self.user_id is not None:
            found.append(col(Transaction.user_id) == self.user_id)
        if self.type is not None:
            found.append(col(Transaction.type) == self.type)
        if self.payment_method is not None:
            found.append(col(Transaction.payment_method) == self.payment_method)
        if self.is_completed is not None:
            found.append(col(Transaction.is_completed) == self.is_completed)
        if self.date_from is not None:
            found.append(col(Transaction.created_at) >= self.date_from)
        if self.date_to is not None:
            found.append(col(Transaction.created_at) <= self.date_to)
        return found


async def list_transactions(
    session: AsyncSession, filters: TransactionFilter, limit: int, offset: int
) -> tuple[int, Sequence[Transaction]]:
    """How many transactions match, and one page of them, newest first. A page that ends
    before ``limit`` gives the total itself, so only a full or empty page costs a count."""
    conditions = filters.conditions()
    query = (
        select(Transaction)
        .where(*conditions)
        .order_by(col(Transaction.created_at).desc(), col(Transaction.id).desc())
        .limit(limit)
        .offset(offset)
    )
    rows = (await session.exec(query)).all()
    if (rows and len(rows) < limit) or (not rows and offset == 0):
        return offset + len(rows), rows
    count = select(func.count()).select_from(Transaction).where(*conditions)
    return (await session.exec(count)).one(), rows


TRANSFER_METHOD = "balance"
"""Payment method of a transfer between two balances (no payment gateway)."""


async def transfer_balance(
    session: AsyncSession,
    events: EventBus,
    from_user_id: int,
    to_user_id: int,
    *,
    key: str,
    description: str,
) -> int:
    """Move the whole balance of ``from_user_id`` to ``to_user_id`` (an account merge): a
    ``withdrawal`` on the one and a ``deposit`` on the other, method ``balance``, external ids
    ``<key>:out`` and ``<key>:in``, each with ``transaction.created`` (no ``payment.completed``:
    no money came in, nor is the first top-up marked). Returns the amount moved; 0 when there
    was none, or when ``key`` already moved it (the unique external ids make a second transfer
    with one key impossible). The caller holds both users' rows locked."""
    out_key, in_key = f"{key}:out", f"{key}:in"
    done = select(col(Transaction.id)).where(
        col(Transaction.payment_method) == TRANSFER_METHOD, col(Transaction.external_id) == out_key
    )
    if (await session.exec(done)).first() is not None:
        return 0
    balance = select(col(User.balance_kopeks)).where(col(User.id) == from_user_id)
    amount = (await session.exec(balance)).one()
    if amount <= 0:
        return 0
    _, left = await change_balance(session, from_user_id, -amount)
    out = Recorded(WITHDRAWAL, amount, description, TRANSFER_METHOD, out_key)
    await _insert_transaction(session, events, out, from_user_id, left, payment=False)
    parameters = _change_parameters(to_user_id, amount, utcnow())
    row = (await session.exec(_balance_update(False, False), params=parameters)).first()
    if row is None:
        raise InsufficientBalance
    deposit = Recorded(DEPOSIT, amount, description, TRANSFER_METHOD, in_key)
    await _insert_transaction(session, events, deposit, to_user_id, row[1], payment=False)
    return amount
