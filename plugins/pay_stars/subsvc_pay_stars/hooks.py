"""The payments hooks: the Stars method for the cabinet and its provider, while configured."""

from __future__ import annotations

from starlette.applications import Starlette
from subsvc_payments.api import PaymentMethodInfo

from subsvc.hookspecs import hookimpl
from subsvc_pay_stars.provider import NAME, StarsProvider
from subsvc_pay_stars.settings import configured


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    """The Stars method, its limits and its rate."""
    settings = configured(app)
    if settings is None:
        return None
    rate = settings.STARS_RATE_RUB.normalize()
    method = PaymentMethodInfo(
        id=NAME,
        name="Stars",
        description=f"Звёзды мессенджера: 1 ⭐ = {rate:f} ₽, счёт в целых звёздах (округление до ближайшей)",
        min_amount_kopeks=settings.STARS_MIN_AMOUNT_KOPEKS,
        max_amount_kopeks=settings.STARS_MAX_AMOUNT_KOPEKS,
    )
    return [method]


@hookimpl
def payments_provider(app: Starlette, method: str) -> StarsProvider | None:
    """The Stars provider for the method ``messenger_stars``."""
    settings = configured(app) if method == NAME else None
    return None if settings is None else StarsProvider(app, settings)
