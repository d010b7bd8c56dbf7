"""The payments plugin's provider hooks: the ``cryptobot`` method and its provider, while a
token is configured."""

from __future__ import annotations

from starlette.applications import Starlette
from subsvc_payments.api import PaymentMethodInfo, provider_http

from subsvc.hookspecs import hookimpl
from subsvc_pay_cryptobot.provider import NAME, TITLE, CryptoBotProvider
from subsvc_pay_cryptobot.settings import CryptoBotSettings

DESCRIPTION = "Криптовалюта через CryptoBot: счёт в рублях"


def _description(assets: list[str]) -> str:
    """What the cabinet shows under the method: the assets it takes, when they are limited."""
    return f"{DESCRIPTION}, оплата в {', '.join(assets)}" if assets else DESCRIPTION


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    """The ``cryptobot`` method with its limits; none while no token is set."""
    settings = CryptoBotSettings.of(app)
    if not settings.configured:
        return None
    method = PaymentMethodInfo(
        id=NAME,
        name=TITLE,
        description=_description(settings.CRYPTOBOT_ACCEPTED_ASSETS),
        min_amount_kopeks=settings.CRYPTOBOT_MIN_AMOUNT_KOPEKS,
        max_amount_kopeks=settings.CRYPTOBOT_MAX_AMOUNT_KOPEKS,
    )
    return [method]


@hookimpl
def payments_provider(app: Starlette, method: str) -> CryptoBotProvider | None:
    """The provider of the method ``cryptobot``, while a token is set."""
    settings = CryptoBotSettings.of(app)
    if method != NAME or not settings.configured:
        return None
    http = provider_http(app, NAME, settings.CRYPTOBOT_API_URL, settings.CRYPTOBOT_TIMEOUT_SECONDS)
    return CryptoBotProvider(settings, http)
