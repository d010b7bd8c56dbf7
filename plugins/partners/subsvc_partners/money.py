"""What a user may withdraw: referral earnings (from `referrals`) less every request that holds
money, never more than the balance. The balance already lacks what requests hold (a request
reserves its amount at once), so it is what the user can spend."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_billing.api import Transaction
from subsvc_referrals.api import earned_totals
from subsvc_users.api import User

from subsvc.api import HTTPError
from subsvc_partners.models import WithdrawalRequest

PENDING, APPROVED, COMPLETED, REJECTED, CANCELLED = (
    "pending",
    "approved",
    "completed",
    "rejected",
    "cancelled",
)
STATUSES = (PENDING, APPROVED, REJECTED, COMPLETED, CANCELLED)
HOLDING = (PENDING, APPROVED)  # the amount is reserved, not yet paid out
SPENDING_TYPES = ("subscription_payment", "gift_payment")


@dataclass(frozen=True)
class Standing:
    """A user's referral money as withdrawals see it (kopeks)."""

    balance: int
    total_earned: int
    withdrawn: int  # approved or completed requests
    pending: int  # pending requests
    spending: int  # paid for purchases, all time

    @property
    def available_referral(self) -> int:
        return min(self.balance, max(0, self.total_earned - self.withdrawn - self.pending))

    @property
    def referral_spent(self) -> int:
        return min(self.spending, self.total_earned)


async def request_sums(session: AsyncSession, user_id: int) -> dict[str, int]:
    """The amounts of the user's requests by status."""
    query = (
        select(WithdrawalRequest.status, sa.func.coalesce(sa.func.sum(WithdrawalRequest.amount_kopeks), 0))
        .where(col(WithdrawalRequest.user_id) == user_id)
        .group_by(col(WithdrawalRequest.status))
    )
    return {status: int(total) for status, total in (await session.exec(query)).all()}


async def standing(session: AsyncSession, user_id: int) -> Standing:
    """The user's standing as ``session``'s transaction sees it now."""
    balance = (await session.exec(select(User.balance_kopeks).where(col(User.id) == user_id))).first()
    if balance is None:  # deleted meanwhile (authentication found the user)
        raise HTTPError(404, "User not found")
    sums = await request_sums(session, user_id)
    earned = (await earned_totals(session, [user_id])).get(user_id, 0)
    spent = (
        await session.exec(
            select(sa.func.coalesce(sa.func.sum(Transaction.amount_kopeks), 0)).where(
                col(Transaction.user_id) == user_id, col(Transaction.type).in_(SPENDING_TYPES)
            )
        )
    ).one()
    return Standing(
        balance=int(balance),
        total_earned=int(earned),
        withdrawn=sums.get(APPROVED, 0) + sums.get(COMPLETED, 0),
        pending=sums.get(PENDING, 0),
        spending=abs(int(spent)),
    )


def rub(kopeks: int) -> str:
    """Kopeks as rubles for a message: ``1000`` or ``1000.50``."""
    whole, part = divmod(kopeks, 100)
    return f"{whole}" if part == 0 else f"{whole}.{part:02d}"
