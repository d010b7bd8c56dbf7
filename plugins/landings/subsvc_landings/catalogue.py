"""What a landing page sells: its tariffs, periods, prices (with its discount) and methods."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from subsvc_tariffs.api import Tariff

from subsvc_landings.models import LandingPage
from subsvc_landings.pages import discount_active


@dataclass(frozen=True)
class Price:
    """A period's price: ``final`` after the page's discount (``percent``, 0 for none)."""

    base: int
    final: int
    percent: int


def overridden(page: LandingPage, tariff: Tariff) -> list[int] | None:
    """The page's own list of periods for the tariff (``None``: it sells every priced one)."""
    override: list[int] | None = (page.config.get("allowed_periods") or {}).get(str(tariff.id))
    return override or None


def periods_of(page: LandingPage, tariff: Tariff) -> list[int]:
    """The periods the page sells of a tariff: its override, else every priced period."""
    priced = sorted(int(days) for days, kopeks in tariff.period_prices.items() if int(kopeks) > 0)
    override = overridden(page, tariff)
    return [days for days in override if days in priced] if override else priced


def price_of(page: LandingPage, tariff: Tariff, days: int, now: datetime) -> Price | None:
    """The period's price on this page (``None``: not priced); the discount inside its window."""
    base = tariff.period_prices.get(str(days))
    if base is None or int(base) <= 0:
        return None
    base = int(base)
    percent = 0
    if discount_active(page, now):
        overrides: dict[str, int] = page.config.get("discount_overrides") or {}
        percent = int(overrides.get(str(tariff.id), page.config["discount_percent"]))
    final = max(1, base * (100 - percent) // 100) if percent else base
    return Price(base, final, percent)


def method_of(page: LandingPage, requested: str) -> tuple[dict[str, Any], str | None] | None:
    """The page's configured method a request names (``method`` or ``method_option`` with
    that option enabled) and the option; ``None`` when the page has no such method."""
    for method in page.config.get("payment_methods") or []:
        method_id = method["method_id"]
        if requested == method_id:
            return method, None
        options = method.get("sub_options") or {}
        if requested.startswith(f"{method_id}_") and options.get(requested[len(method_id) + 1 :]):
            return method, requested[len(method_id) + 1 :]
    return None


def localized(texts: dict[str, str] | None, lang: str) -> str | None:
    """The text in ``lang``, else Russian, else English, else any."""
    if not texts:
        return None
    for key in (lang, "ru", "en"):
        if texts.get(key):
            return texts[key]
    return next(iter(texts.values()), None)
