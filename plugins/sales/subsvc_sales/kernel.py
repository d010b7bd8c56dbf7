"""The money side of every sale: :func:`charge` debits the balance in the caller's
transaction, :class:`InsufficientFunds` says by how much it fell short, and
:func:`payment_required` is the 402 answer built from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import InsufficientBalance, change_balance, move_balance
from subsvc_pricing.api import Quote, consume_personal_discount
from subsvc_users.api import User

from subsvc.api import HTTPError, price_label
from subsvc.services import services

SUBSCRIPTION_PAYMENT = "subscription_payment"
BALANCE = "balance"
INSUFFICIENT_FUNDS = "insufficient_funds"


class InsufficientFunds(Exception):
    """The balance does not cover a charge; nothing was changed."""

    def __init__(self, required_kopeks: int, balance_kopeks: int) -> None:
        super().__init__(f"required {required_kopeks} kopeks, balance {balance_kopeks}")
        self.required_kopeks = required_kopeks
        self.balance_kopeks = balance_kopeks

    @property
    def missing_kopeks(self) -> int:
        return max(0, self.required_kopeks - self.balance_kopeks)


class PriceChanged(Exception):
    """The quote used a personal discount that is no longer there to consume (a concurrent
    purchase took it): the price charged would be wrong. The caller rolls back (409)."""


@dataclass(frozen=True)
class Charged:
    """A charge made: its transaction (``None`` for a free charge without a row), the amount,
    the balance after the debit and the personal discount consumed (0: none)."""

    transaction_id: int | None
    amount_kopeks: int
    balance_kopeks: int
    personal_percent: int


async def balance_of(session: AsyncSession, user_id: int) -> int:
    """The user's balance as the session sees it now (0 for no such user)."""
    found = (await session.exec(select(User.balance_kopeks).where(col(User.id) == user_id))).first()
    return int(found or 0)


async def charge(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    quote: Quote | int,
    *,
    description: str,
    record_free: bool = False,
) -> Charged:
    """Debit what the quote charges (or the kopeks given) from the user's balance through
    billing's public API, in the caller's transaction (the caller commits, together with the
    subscription change it pays for): a conditional UPDATE (concurrent charges cannot
    overdraw), a ``subscription_payment`` transaction (method ``balance``; for a free charge
    only with ``record_free``), then the buyer's personal discount consumed when the quote used
    one.

    Raises :class:`InsufficientFunds` (nothing changed) and :class:`PriceChanged` (the quoted
    personal discount is gone: the caller rolls back)."""
    amount = quote if isinstance(quote, int) else quote.final_kopeks
    if amount < 0:
        raise ValueError("a charge cannot be negative")
    transaction_id: int | None = None
    try:
        if amount > 0 or record_free:
            transaction_id, balance = await move_balance(
                session,
                services(app).events,
                user_id,
                -amount,
                type=SUBSCRIPTION_PAYMENT,
                description=description,
                payment_method=BALANCE,
            )
        else:
            _, balance = await change_balance(session, user_id, 0)
    except InsufficientBalance:
        raise InsufficientFunds(amount, await balance_of(session, user_id)) from None
    percent = 0
    if isinstance(quote, Quote) and quote.uses_personal:
        percent = await consume_personal_discount(app, session, user_id, context=description)
        if percent < quote.personal_percent:
            raise PriceChanged(description)
    return Charged(transaction_id, amount, balance, percent)


def insufficient_message(missing_kopeks: int) -> str:
    """The reference's text: 'Недостаточно средств. Не хватает {price}'."""
    return f"Недостаточно средств. Не хватает {price_label(missing_kopeks)}"


def payment_required(error: InsufficientFunds, **fields: Any) -> HTTPError:
    """The 402 answer (raise it): ``{code: 'insufficient_funds', message, missing_amount,
    ...fields}``; each operation adds its reference fields (``cart_saved``, ``cart_mode``,
    ``required_kopeks`` ...)."""
    detail: dict[str, Any] = {
        "code": INSUFFICIENT_FUNDS,
        "message": insufficient_message(error.missing_kopeks),
        "missing_amount": error.missing_kopeks,
        **fields,
    }
    return HTTPError(402, detail)
