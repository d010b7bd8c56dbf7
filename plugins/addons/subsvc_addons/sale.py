"""What the paid add-ons share: the subscription they change (locked after its user, the order
every seller locks in), the tariff it is on, who buys, and the money's wire figures."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing import api as pricing
from subsvc_pricing.api import Buyer, TariffTerms
from subsvc_subscriptions import api as subscriptions
from subsvc_subscriptions.api import Subscription, SubscriptionSettings
from subsvc_users.api import get_user

from subsvc.api import HTTPError
from subsvc_addons.owned import NO_SUBSCRIPTION, subscription_of

NO_ACTIVE = "У вас нет активной подписки"
INACTIVE = "Ваша подписка неактивна"
USABLE = frozenset({"active", "trial"})


@dataclass(frozen=True)
class Target:
    """The subscription an add-on is bought for, its tariff (``None``: classic) and the buyer."""

    subscription: Subscription
    tariff: TariffTerms | None
    buyer: Buyer
    now: datetime

    @property
    def days_left(self) -> int:
        return pricing.add_on_days_left(self.subscription.end_date, self.now)

    @property
    def status(self) -> str:
        return subscriptions.actual_status(self.subscription.status, self.subscription.end_date, self.now)


async def tariff_of(app: Starlette, session: AsyncSession, subscription: Subscription) -> TariffTerms | None:
    """The tariff the subscription is on as the engine prices it (``None``: classic, or the
    tariffs mode is off)."""
    if subscription.tariff_id is None or pricing.sales_mode(app) != "tariffs":
        return None
    found = await pricing.tariff_terms(app, session, [subscription.tariff_id], active_only=False)
    return found[0] if found else None


async def target(
    app: Starlette,
    session: AsyncSession,
    user_id: int,
    subscription_id: int | None,
    *,
    now: datetime,
    lock: bool,
    missing: str = NO_SUBSCRIPTION,
    status: int = 404,
) -> Target:
    """The user's subscription (``status`` ``missing`` without one) with its tariff and the
    buyer. ``lock``: the user's row, then the subscription's, held to the end of the
    transaction (a purchase checks its limits under them)."""
    if lock:
        await get_user(session, user_id, for_update=True)
    subscription = await subscription_of(
        session, user_id, subscription_id, missing=missing, status=status, for_update=lock
    )
    buyer = await pricing.buyer_of(app, session, user_id)
    if buyer is None:
        raise HTTPError(status, missing)
    return Target(subscription, await tariff_of(app, session, subscription), buyer, now)


def device_cap(app: Starlette, tariff: TariffTerms | None) -> int | None:
    """The most devices the subscription may have (``None``: no cap): the tariff's, and never
    above ``MAX_DEVICES_LIMIT`` where that is set (subscriptions hold every raise to it)."""
    setting = SubscriptionSettings.of(app).MAX_DEVICES_LIMIT or None
    own = tariff.device_cap() if tariff is not None else setting
    caps = [cap for cap in (own, setting) if cap is not None]
    return min(caps) if caps else None


def included_devices(app: Starlette, tariff: TariffTerms | None) -> int:
    """The devices the subscription has without buying any: the tariff's, else
    ``DEFAULT_DEVICE_LIMIT``."""
    return tariff.device_limit if tariff is not None else SubscriptionSettings.of(app).DEFAULT_DEVICE_LIMIT


def device_unit(app: Starlette, tariff: TariffTerms | None) -> int:
    """Kopeks a month of one device bought on top."""
    return tariff.device_unit_price() if tariff is not None else pricing.classic_tables(app).price_per_device


def rubles(kopeks: int) -> float:
    return kopeks / 100


def rubles_text(kopeks: int) -> str:
    """``12345`` -> ``"123.45"`` (the reference's ``{x:.2f}`` texts)."""
    return f"{kopeks / 100:.2f}"
