"""Traffic bought on top of a subscription (a tariff's top-up packages, or classic mode's
packages prorated to the days left) and a classic subscription's traffic tier switched: the
rules and texts of the reference (behaviours-money §2.2). The listing, the saved cart and the
purchase price a package alike (the engine's ``traffic_package``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing import api as pricing
from subsvc_pricing.api import Buyer, PricingSettings, Quote

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc_addons.sale import INACTIVE, Target, rubles, target
from subsvc_addons.sale_schemas import TrafficPackage
from subsvc_addons.settings import AddonsSettings

TRIAL = "Докупка трафика недоступна на пробном периоде"
UNLIMITED = "Cannot add traffic to unlimited subscription"
TARIFF_NOT_FOUND = "Tariff not found"
TARIFF_OFF = "Traffic top-up is disabled for this tariff"
CLASSIC_OFF = "Traffic top-up feature is disabled"
FIXED = "Traffic top-up is not available for your tariff"
INVALID_PACKAGE = "Invalid traffic package"
NO_PRICE = "Traffic package has no price configured"
PAID_ONLY = "Traffic management is only available for paid subscriptions"
SAME_PACKAGE = "Already on this traffic package"
TARIFF_SWITCH = "Traffic packages are switched only on classic subscriptions"
TRAFFIC_USABLE = frozenset({"active", "trial", "limited"})


@dataclass(frozen=True)
class TrafficOffer:
    """A package of ``gb`` for the subscription at the price the engine gives."""

    target: Target
    gb: int
    quote: Quote


def _classic_packages(app: Starlette) -> dict[int, int]:
    """Classic mode's packages as set (a price of 0: not sold)."""
    return dict(PricingSettings.of(app).CLASSIC_TRAFFIC_PACKAGES)


def _classic_quote(price: int, buyer: Buyer, found: Target | None) -> Quote:
    prorate_to = (found.subscription.end_date, found.now) if found is not None else None
    return pricing.traffic_package(price, buyer, prorate_to=prorate_to)


def offer(app: Starlette, found: Target, gb: int) -> TrafficOffer:
    """Price a package of ``gb`` for the subscription, or refuse it with the reference's 400
    (404 for a tariff that is gone) texts."""
    subscription = found.subscription
    if subscription.is_trial:
        raise HTTPError(400, TRIAL)
    if found.status not in TRAFFIC_USABLE:
        raise HTTPError(400, INACTIVE)
    if found.tariff is None and subscription.tariff_id is not None and pricing.sales_mode(app) == "tariffs":
        raise HTTPError(404, TARIFF_NOT_FOUND)
    if found.tariff is not None:
        tariff = found.tariff
        if not tariff.traffic_topup_enabled:
            raise HTTPError(400, TARIFF_OFF)
        if subscription.traffic_limit_gb == 0:
            raise HTTPError(400, UNLIMITED)
        most = tariff.max_topup_traffic_gb
        if most > 0 and subscription.traffic_limit_gb + gb > most:
            room = max(0, most - subscription.traffic_limit_gb)
            raise HTTPError(400, f"Traffic limit exceeded. Max: {most} GB, available: {room} GB")
        if gb not in tariff.traffic_topup_packages:
            raise HTTPError(400, f"Traffic package {gb}GB is not available")
        price = tariff.traffic_topup_packages[gb]
        if price <= 0:
            raise HTTPError(400, f"Traffic package {gb}GB has no price configured")
        return TrafficOffer(found, gb, pricing.traffic_package(price, found.buyer, prorate_to=None))
    if not AddonsSettings.of(app).TRAFFIC_TOPUP_ENABLED:
        raise HTTPError(400, CLASSIC_OFF)
    if PricingSettings.of(app).TRAFFIC_SELECTION_MODE == "fixed":
        raise HTTPError(400, FIXED)
    if subscription.traffic_limit_gb == 0:
        raise HTTPError(400, UNLIMITED)
    packages = _classic_packages(app)
    if gb not in packages:
        raise HTTPError(400, INVALID_PACKAGE)
    if packages[gb] <= 0:
        raise HTTPError(400, NO_PRICE)
    return TrafficOffer(found, gb, _classic_quote(packages[gb], found.buyer, found))


def _package(gb: int, quote: Quote) -> TrafficPackage:
    discount = quote.discount_kopeks
    return TrafficPackage(
        gb=gb,
        price_kopeks=quote.final_kopeks,
        price_rubles=rubles(quote.final_kopeks),
        is_unlimited=gb == 0,
        discount_percent=quote.discount_percent,
        base_price_kopeks=quote.original_kopeks if discount else None,
        discount_kopeks=discount or None,
    )


async def packages(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> list[TrafficPackage]:
    """The packages on sale for the subscription at the price a purchase charges now: its
    tariff's top-up packages (none when top-ups are off or it is unlimited), else classic
    mode's (while ``TRAFFIC_TOPUP_ENABLED``; prorated to the subscription's days left)."""
    try:
        found: Target | None = await target(app, session, user_id, subscription_id, now=utcnow(), lock=False)
    except HTTPError:
        found = None
    if found is not None and found.tariff is not None:
        tariff = found.tariff
        if not tariff.traffic_topup_enabled or tariff.traffic_limit_gb == 0:
            return []
        on_sale = {gb: price for gb, price in tariff.traffic_topup_packages.items() if price > 0}
        return [
            _package(gb, pricing.traffic_package(price, found.buyer, prorate_to=None))
            for gb, price in sorted(on_sale.items())
        ]
    if found is None and pricing.sales_mode(app) == "tariffs":
        return []
    if not AddonsSettings.of(app).TRAFFIC_TOPUP_ENABLED:
        return []
    buyer = found.buyer if found is not None else await pricing.guest(app, session)
    on_sale = {gb: price for gb, price in _classic_packages(app).items() if price > 0}
    return [_package(gb, _classic_quote(price, buyer, found)) for gb, price in sorted(on_sale.items())]


def switch_offer(app: Starlette, found: Target, gb: int) -> tuple[int, Quote]:
    """Another traffic tier for a classic subscription (``PUT /traffic``): the tier it is on
    (its limit without the purchased traffic) and the price of the switch (an upgrade's
    difference, discounted and prorated; a downgrade free)."""
    subscription = found.subscription
    if subscription.is_trial:
        raise HTTPError(403, PAID_ONLY)
    if found.tariff is not None:
        raise HTTPError(400, TARIFF_SWITCH)
    if gb == subscription.traffic_limit_gb:
        raise HTTPError(400, SAME_PACKAGE)
    tiers = pricing.classic_tables(app).traffic_prices
    if gb not in tiers:
        raise HTTPError(400, INVALID_PACKAGE)
    base = max(0, subscription.traffic_limit_gb - subscription.purchased_traffic_gb)
    current = base if subscription.traffic_limit_gb else 0
    quote = pricing.traffic_package_switch(
        pricing.tier_price(tiers, current),
        tiers[gb],
        found.buyer,
        end=subscription.end_date,
        now=found.now,
    )
    return current, quote
