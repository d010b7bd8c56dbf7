"""A purchase made in the app, posted by the user: Apple is asked for the transaction (no
database transaction open), its signed answer checked against the request and the user, then
the payment is created and credited in the request's transaction through payments' API —
once per Apple transaction, however often and concurrently it is posted."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_payments.api import create_payment, credit_paid

from subsvc.api.refusal import Refusal
from subsvc_pay_apple_iap import records
from subsvc_pay_apple_iap.client import (
    CONSUMABLE,
    NAME,
    AppleTransaction,
    AppStoreClient,
    TransactionNotFound,
)
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.settings import AppleIapSettings
from subsvc_pay_apple_iap.tokens import account_token, same_token

CURRENCY = "RUB"
WITHOUT_ACCOUNT = (
    "The transaction carries no appAccountToken: buy with the token of /cabinet/apple-iap/account-token"
)
NOT_CONFIGURED = (
    "Apple In-App Purchase is not configured: set APPLE_IAP_ISSUER_ID, APPLE_IAP_KEY_ID, "
    "APPLE_IAP_PRIVATE_KEY and APPLE_IAP_BUNDLE_ID"
)


class AppleRefusal(Refusal):
    """A purchase (or an Apple IAP operation) refused: its status and why."""


def configured(app: Starlette) -> AppleIapSettings:
    """The settings, or 503 while Apple IAP is not configured."""
    settings = AppleIapSettings.of(app)
    if not settings.configured:
        raise AppleRefusal(503, NOT_CONFIGURED)
    return settings


def check(apple: AppleTransaction, settings: AppleIapSettings, user_id: int, product_id: str) -> None:
    """Refuse a transaction that is not this app's consumable ``product_id``, bought with this
    user's token, and not revoked (400 for a request that cannot be right, 409 for one at odds
    with the transaction's owner or state)."""
    if apple.bundle_id != settings.APPLE_IAP_BUNDLE_ID:
        raise AppleRefusal(400, f"The transaction is of another app ({apple.bundle_id})")
    if apple.product_id != product_id:
        raise AppleRefusal(400, f"The transaction bought {apple.product_id}, not {product_id}")
    if apple.type != CONSUMABLE:
        raise AppleRefusal(
            400, f"Only consumable products top up the balance ({apple.product_id} is {apple.type})"
        )
    if apple.revoked_at is not None:
        raise AppleRefusal(
            409, f"Apple revoked this transaction (refunded on {apple.revoked_at.isoformat()})"
        )
    if apple.app_account_token is None:
        raise AppleRefusal(400, WITHOUT_ACCOUNT)
    if not same_token(apple.app_account_token, account_token(settings, user_id)):
        raise AppleRefusal(409, "The transaction belongs to another account")


async def purchase(
    app: Starlette, session: AsyncSession, user_id: int, product_id: str, transaction_id: str
) -> None:
    """Verify the user's Apple transaction and credit it once (see the module's text)."""
    settings = configured(app)
    kopeks = settings.APPLE_IAP_PRODUCTS.get(product_id)
    if kopeks is None:
        raise AppleRefusal(400, f"Unknown Apple product: {product_id}")
    if not transaction_id.isdigit():
        raise AppleRefusal(400, "An Apple transaction id is a number")
    try:
        apple = await AppStoreClient(app, settings).transaction(transaction_id)
    except TransactionNotFound:
        raise AppleRefusal(400, f"Apple knows no transaction {transaction_id}") from None
    if apple.transaction_id != transaction_id:
        raise AppleRefusal(400, f"Apple answered transaction {apple.transaction_id}, not {transaction_id}")
    check(apple, settings, user_id, product_id)
    known = await records.find(session, transaction_id)
    if known is not None:
        if known.user_id != user_id:
            raise AppleRefusal(409, "The transaction belongs to another account")
        return  # credited before
    await credit(app, session, user_id, apple, kopeks)


async def credit(
    app: Starlette, session: AsyncSession, user_id: int, apple: AppleTransaction, kopeks: int
) -> None:
    """Create the payment (the key ``apple_iap:<transaction id>`` settles concurrent posts:
    one payment) and credit it; the first to create it records the transaction."""
    summary = {
        "product_id": apple.product_id,
        "environment": apple.environment,
        "price": apple.price,
        "currency": apple.currency,
    }
    payment, created = await create_payment(
        app,
        session,
        user_id,
        NAME,
        NAME,
        kopeks,
        f"{NAME}:{apple.transaction_id}",
        currency=CURRENCY,
        provider_payment_id=apple.transaction_id,
        data={"apple": summary},
    )
    await credit_paid(app, session, NAME, apple.transaction_id, kopeks, CURRENCY, {"transaction": apple.raw})
    if not created:
        return
    assert payment.id is not None
    session.add(
        AppleIapTransaction(
            payment_id=payment.id,
            user_id=user_id,
            transaction_id=apple.transaction_id,
            original_transaction_id=apple.original_transaction_id,
            product_id=apple.product_id,
            amount_kopeks=kopeks,
            price=apple.price,
            currency=apple.currency,
            environment=apple.environment,
            purchased_at=apple.purchased_at,
            data={"transaction": apple.raw},
        )
    )
    await session.flush()
