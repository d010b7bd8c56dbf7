"""What other plugins may use of the renewals plugin (the rest is private): the services its
cabinet operations call, for the mini app's equivalents. Refusals are
:class:`RenewalError` (``status``, ``detail``: the cabinet's answer).

- The operations: :func:`renewal_options`, :func:`renew` (402: the ``extend`` cart is
  saved and committed first), :func:`update_autopay`, :func:`toggle_pause`,
  :func:`preview_tariff_switch`, :func:`switch_tariff`. A 402 is the sales kernel's
  :class:`subsvc.api.HTTPError` (``status_code`` 402, ``detail`` the body).
- The jobs' work, over a clock given as ``now``: :func:`autopay_due`,
  :func:`charge_daily_due`, :func:`expire_due`.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.db import utcnow
from subsvc_renewals import options
from subsvc_renewals.autopay import update_autopay
from subsvc_renewals.daily import toggle_pause
from subsvc_renewals.errors import RenewalError
from subsvc_renewals.expiry import expire_due
from subsvc_renewals.jobs import autopay_due, charge_daily_due
from subsvc_renewals.renewing import renew
from subsvc_renewals.schemas import (
    AutopayResponse,
    AutopayUpdateRequest,
    PauseResponse,
    RenewalOptionResponse,
    RenewalRequest,
    RenewalResponse,
    SwitchPreview,
    SwitchResult,
    TariffSwitchRequest,
)
from subsvc_renewals.subject import buyer, subscription_of
from subsvc_renewals.switch_quote import preview_tariff_switch
from subsvc_renewals.switching import switch_tariff

__all__ = [
    "AutopayResponse",
    "AutopayUpdateRequest",
    "PauseResponse",
    "RenewalError",
    "RenewalOptionResponse",
    "RenewalRequest",
    "RenewalResponse",
    "SwitchPreview",
    "SwitchResult",
    "TariffSwitchRequest",
    "autopay_due",
    "charge_daily_due",
    "expire_due",
    "preview_tariff_switch",
    "renew",
    "renewal_options",
    "switch_tariff",
    "toggle_pause",
    "update_autopay",
]


async def renewal_options(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None = None,
    *,
    now: datetime | None = None,
) -> list[RenewalOptionResponse]:
    """The periods the user's subscription can be renewed for at their price; empty without
    a subscription (or one that cannot be renewed)."""
    now = now or utcnow()
    try:
        subscription = await subscription_of(app, session, user_id, subscription_id, now=now)
    except RenewalError:
        return []
    return await options.renewal_options(app, session, subscription, await buyer(app, session, user_id), now)
