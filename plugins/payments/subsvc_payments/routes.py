"""The cabinet's payment methods (tag Cabinet Balance): what the provider plugins offer."""

from __future__ import annotations

from starlette.requests import Request

from subsvc.api import Router
from subsvc.services import services
from subsvc_payments.hookspecs import PaymentMethodInfo
from subsvc_payments.schemas import PaymentMethodResponse

balance = Router(area="cabinet", tag="Cabinet Balance")


def _response(method: PaymentMethodInfo) -> PaymentMethodResponse:
    return PaymentMethodResponse(
        id=method.id,
        name=method.name,
        description=method.description,
        min_amount_kopeks=method.min_amount_kopeks,
        max_amount_kopeks=method.max_amount_kopeks,
        options=None if method.options is None else [dict(option) for option in method.options],
        quick_amounts=list(method.quick_amounts),
        open_url_direct=method.open_url_direct,
    )


async def payment_methods(request: Request) -> list[PaymentMethodResponse]:
    """The methods every configured provider plugin offers, each id once."""
    answers = await services(request.app).plugins.call_all("payments_providers", app=request.app)
    listed: dict[str, PaymentMethodResponse] = {}
    for methods in answers:
        for method in methods:
            listed.setdefault(method.id, _response(method))
    return list(listed.values())


@balance.get(
    "/cabinet/balance/payment-methods",
    response_model=list[PaymentMethodResponse],
    summary="Get Payment Methods",
)
async def get_payment_methods(request: Request) -> list[PaymentMethodResponse]:
    """Payment methods available to the user: those of the configured provider plugins (an
    empty list while none is installed or configured)."""
    return await payment_methods(request)
