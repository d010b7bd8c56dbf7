"""Extension points of the referrals plugin, for the plugins that build on it."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.hookspecs import hookspec


@dataclass(frozen=True)
class NetworkCampaign:
    """A campaign as the referral network shows it: its users are those it registered."""

    id: int
    name: str
    start_parameter: str
    is_active: bool
    user_ids: tuple[int, ...]
    partner_user_id: int | None = None


@hookspec(firstresult=True)
def referral_commission_percent(session: AsyncSession, user_id: int) -> Awaitable[int | None] | int | None:
    """Return (an awaitable of) the individual commission percent of referrer ``user_id``
    (0..100), or ``None`` when the user has none (the global percent applies). The first
    implementation that answers decides (the ``partners`` plugin, for approved partners)."""


@hookspec(firstresult=True)
def referral_withdrawal_totals(session: AsyncSession, user_id: int) -> Awaitable[tuple[int, int]] | None:
    """Return (an awaitable of) ``(withdrawn, pending)``: the kopeks of the user's referral
    withdrawals paid out (approved or completed) and requested (pending). None answering: 0, 0
    (the ``partners`` plugin's withdrawals answer)."""


@hookspec
def referral_network_campaigns(
    session: AsyncSession, campaign_ids: Sequence[int] | None
) -> Awaitable[Sequence[NetworkCampaign]] | None:
    """Return (an awaitable of) the campaigns of ``campaign_ids`` (``None``: all) with the
    users each registered (first touch), for the referral network and the earnings list
    (the ``campaigns`` plugin answers)."""


@hookspec(firstresult=True)
def referral_partner_ids(session: AsyncSession) -> Awaitable[set[int]] | None:
    """Return (an awaitable of) the ids of the approved partners (the ``partners`` plugin)."""


@hookspec(firstresult=True)
def referral_user_campaign(session: AsyncSession, user_id: int) -> Awaitable[int | None] | None:
    """Return (an awaitable of) the id of the campaign that registered ``user_id`` (first
    touch), or ``None``: the campaign an earning through that referee records (the
    ``campaigns`` plugin answers)."""
