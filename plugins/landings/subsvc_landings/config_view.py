"""The public view of a landing page, localised."""

from __future__ import annotations

from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_payments.api import provider_for
from subsvc_tariffs.api import find_tariff

from subsvc.db import utcnow
from subsvc_landings.catalogue import localized, periods_of, price_of
from subsvc_landings.models import LandingPage
from subsvc_landings.pages import discount_active
from subsvc_landings.schemas import (
    LandingConfigResponse,
    LandingDiscountInfo,
    LandingFeature,
    LandingPaymentMethod,
    LandingPaymentMethodSubOption,
    LandingTariff,
    LandingTariffPeriod,
)

OPTIONS = ("sticky_pay_button", "analytics_view_enabled", "analytics_view_goal", "analytics_click_enabled",
           "analytics_click_goal", "background_config", "custom_css")  # fmt: skip


def _label(kopeks: int) -> str:
    rubles = kopeks / 100
    return f"{rubles:.0f} ₽" if kopeks % 100 == 0 else f"{rubles:.2f} ₽"


async def _tariffs(session: AsyncSession, page: LandingPage, now: datetime) -> list[LandingTariff]:
    found = []
    for tariff_id in page.config.get("allowed_tariff_ids") or []:
        tariff = await find_tariff(session, tariff_id)
        if tariff is None or not tariff.is_active or tariff.id is None:
            continue
        periods = []
        for days in periods_of(page, tariff):
            price = price_of(page, tariff, days, now)
            if price is None:
                continue
            discounted = price.final != price.base
            periods.append(
                LandingTariffPeriod(
                    days=days,
                    label=f"{days} дн.",
                    price_kopeks=price.final,
                    price_label=_label(price.final),
                    original_price_kopeks=price.base if discounted else None,
                    original_price_label=_label(price.base) if discounted else None,
                    discount_percent=price.percent if discounted else None,
                )
            )
        found.append(
            LandingTariff(
                id=tariff.id,
                name=tariff.name,
                description=tariff.description,
                traffic_limit_gb=tariff.traffic_limit_gb,
                device_limit=tariff.device_limit,
                tier_level=tariff.tier_level,
                periods=periods,
            )
        )
    return found


async def _methods(app: Starlette, page: LandingPage) -> list[LandingPaymentMethod]:
    """The page's methods whose provider is installed and configured, in order."""
    shown = []
    for method in sorted(page.config.get("payment_methods") or [], key=lambda m: m.get("sort_order", 0)):
        if await provider_for(app, method["method_id"]) is None:
            continue
        options = [
            LandingPaymentMethodSubOption(id=key, name=key)
            for key, on in (method.get("sub_options") or {}).items()
            if on
        ]
        shown.append(LandingPaymentMethod.model_validate({**method, "sub_options": options or None}))
    return shown


async def public_view(
    app: Starlette, session: AsyncSession, page: LandingPage, lang: str
) -> LandingConfigResponse:
    config, now = page.config, utcnow()
    discount = None
    if discount_active(page, now) and config.get("discount_ends_at"):
        badge = localized(config.get("discount_badge_text"), lang)
        discount = LandingDiscountInfo(
            percent=config["discount_percent"], ends_at=config["discount_ends_at"], badge_text=badge
        )
    features = [
        LandingFeature(
            icon=f.get("icon", ""),
            title=localized(f.get("title"), lang) or "",
            description=localized(f.get("description"), lang) or "",
        )
        for f in config.get("features") or []
    ]
    return LandingConfigResponse(
        slug=page.slug,
        title=localized(config.get("title"), lang) or "",
        subtitle=localized(config.get("subtitle"), lang),
        features=features,
        footer_text=localized(config.get("footer_text"), lang),
        tariffs=await _tariffs(session, page, now),
        payment_methods=await _methods(app, page),
        gift_enabled=page.gift_enabled,
        meta_title=localized(config.get("meta_title"), lang),
        meta_description=localized(config.get("meta_description"), lang),
        discount=discount,
        **{name: config.get(name) for name in OPTIONS if config.get(name) is not None},
    )
