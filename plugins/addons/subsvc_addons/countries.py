"""The servers (countries) a subscription connects to, added at their monthly price prorated to
the days left (the engine's ``servers_addon``) or removed for nothing (no refund)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_pricing import api as pricing
from subsvc_pricing.api import Quote, ServerOffer

from subsvc.api import HTTPError
from subsvc.db import utcnow
from subsvc_addons.sale import Target, rubles, target
from subsvc_addons.sale_schemas import CountriesResponse, Country

TRIAL = "Country management is not available for trial subscriptions"
NONE_SELECTED = "At least one country must be selected"


def on_sale(offer: ServerOffer) -> bool:
    """Can it be added: open to the buyer's group, available and not full."""
    return offer.open_to_group and offer.is_available and not offer.is_full


@dataclass(frozen=True)
class CountriesChange:
    """The squads asked for: those added (and their price), those removed."""

    target: Target
    squads: list[str]
    added: list[str]
    removed: list[str]
    quote: Quote


async def countries(
    app: Starlette, session: AsyncSession, user_id: int, subscription_id: int | None
) -> CountriesResponse:
    """The servers the buyer's group may connect to (and those connected), each with its
    monthly price after the servers discount and what adding it costs for the days left."""
    found = await target(app, session, user_id, subscription_id, now=utcnow(), lock=False)
    subscription = found.subscription
    connected = list(subscription.connected_squads)
    offers = await pricing.server_prices(session, found.buyer.promo_group_id)
    listed: list[Country] = []
    percent = pricing.group_percent(
        found.buyer.group, "servers", days=pricing.months_of(found.days_left) * 30, addon=True
    )
    for uuid, offer in offers.items():
        is_connected = uuid in connected
        if not is_connected and not offer.open_to_group:
            continue
        prorated = pricing.servers_addon(
            {uuid: offer.price_kopeks}, found.buyer, end=subscription.end_date, now=found.now
        )
        per_month = pricing.apply_discount(offer.price_kopeks, percent)
        listed.append(
            Country(
                uuid=uuid,
                name=offer.name,
                country_code=offer.country_code,
                price_kopeks=offer.price_kopeks,
                price_rubles=rubles(offer.price_kopeks),
                price_per_month_kopeks=per_month,
                prorated_price_kopeks=prorated.final_kopeks,
                discount_percent=prorated.discount_percent,
                is_available=on_sale(offer),
                is_connected=is_connected,
            )
        )
    return CountriesResponse(
        countries=listed,
        connected_count=len(connected),
        connected_squads=connected,
        has_trial=subscription.is_trial,
        days_left=found.days_left,
    )


async def change(app: Starlette, session: AsyncSession, found: Target, squads: list[str]) -> CountriesChange:
    """Check the squads asked for (400 texts of the reference) and price those added."""
    if found.subscription.is_trial:
        raise HTTPError(400, TRIAL)
    wanted = list(dict.fromkeys(squad for squad in squads if squad))
    if not wanted:
        raise HTTPError(400, NONE_SELECTED)
    connected = list(found.subscription.connected_squads)
    added = [squad for squad in wanted if squad not in connected]
    offers = await pricing.server_prices(session, found.buyer.promo_group_id, added) if added else {}
    for squad in added:
        offer = offers.get(squad)
        if offer is None or not on_sale(offer):
            raise HTTPError(400, f"Country {squad} is not available")
    quote = pricing.servers_addon(
        {squad: offers[squad].price_kopeks for squad in added},
        found.buyer,
        end=found.subscription.end_date,
        now=found.now,
    )
    removed = [squad for squad in connected if squad not in wanted]
    return CountriesChange(found, wanted, added, removed, quote)
