"""The payments hooks (no method for the top-up screen; the provider for the notification
endpoint) and the account merge of the transactions' rows."""

from __future__ import annotations

from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_payments.api import PaymentMethodInfo

from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_pay_apple_iap.client import NAME
from subsvc_pay_apple_iap.models import AppleIapTransaction
from subsvc_pay_apple_iap.provider import AppleIapProvider
from subsvc_pay_apple_iap.settings import AppleIapSettings

TRANSACTIONS = SQLModel.metadata.tables[AppleIapTransaction.__tablename__]


@hookimpl
def payments_providers(app: Starlette) -> list[PaymentMethodInfo] | None:
    """None: Apple purchases are made in the app (StoreKit), not from the top-up screen."""
    return None


@hookimpl
def payments_provider(app: Starlette, method: str) -> AppleIapProvider | None:
    """The Apple IAP provider while configured."""
    settings = AppleIapSettings.of(app)
    return AppleIapProvider(app, settings) if method == NAME and settings.configured else None


@hookimpl(optionalhook=True)
async def cabinet_account_merging(
    app: Starlette, session: AsyncSession, kept_user_id: int, removed_user_id: int
) -> None:
    """The removed user's Apple transactions become the kept user's (as their payments do)."""
    await reassign(session, TRANSACTIONS.c.user_id, kept_user_id, removed_user_id)
