"""The payments hooks: Platega's method for the cabinet and its provider, both only while
the merchant credentials are set."""

from __future__ import annotations

from starlette.applications import Starlette
from subsvc_payments.api import PaymentMethodInfo, PaymentProvider

from subsvc.hookspecs import hookimpl
from subsvc_pay_platega.protocol import NAME
from subsvc_pay_platega.provider import PlategaProvider
from subsvc_pay_platega.settings import METHOD_NAMES, PlategaSettings


def method_info(settings: PlategaSettings) -> PaymentMethodInfo:
    """The cabinet's Platega method: its options are the enabled method codes."""
    options = [
        {"id": str(code), "name": METHOD_NAMES[code], "description": None}
        for code in settings.PLATEGA_METHODS
    ]
    return PaymentMethodInfo(
        id=NAME,
        name="Platega",
        description="СБП, банковские карты и другие способы через Platega",
        min_amount_kopeks=settings.PLATEGA_MIN_AMOUNT_KOPEKS,
        max_amount_kopeks=settings.PLATEGA_MAX_AMOUNT_KOPEKS,
        options=options,
    )


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    """Platega's method, once configured."""
    settings = PlategaSettings.of(app)
    return [method_info(settings)] if settings.configured else None


@hookimpl
def payments_provider(app: Starlette, method: str) -> PaymentProvider | None:
    """The Platega provider for the method ``platega``, once configured."""
    settings = PlategaSettings.of(app)
    return PlategaProvider(app, settings) if method == NAME and settings.configured else None
