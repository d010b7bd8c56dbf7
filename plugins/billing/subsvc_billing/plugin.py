"""Plugin `billing`: what it contributes to subsvc (hook implementations only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_settings import BaseSettings

from subsvc.api import Endpoint
from subsvc.hookspecs import hookimpl
from subsvc_billing import __version__
from subsvc_billing.merging import cabinet_account_merging as cabinet_account_merging
from subsvc_billing.models import Transaction
from subsvc_billing.routes import transactions, users
from subsvc_billing.schemas import TransactionEvent
from subsvc_billing.service import PAYMENT_COMPLETED, TRANSACTION_CREATED
from subsvc_billing.settings import BillingSettings

PLUGIN_NAME = "billing"
REQUIRES = ("users",)
MIGRATIONS = Path(__file__).resolve().parent / "migrations" / "versions"

__all__ = ["PLUGIN_NAME", "REQUIRES", "__version__"]


@hookimpl
def register_settings() -> type[BaseSettings]:
    return BillingSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    return [Transaction]


@hookimpl
def register_migrations() -> Path:
    return MIGRATIONS


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    return [*users.endpoints, *transactions.endpoints]


@hookimpl
def register_events() -> Mapping[str, type[BaseModel]]:
    return {PAYMENT_COMPLETED: TransactionEvent, TRANSACTION_CREATED: TransactionEvent}


@hookimpl
def register_permissions() -> Mapping[str, Sequence[str]]:
    return {"users": ["balance"], "payments": ["read"]}


@hookimpl
def register_openapi_tags() -> Sequence[Mapping[str, str]]:
    return [{"name": "transactions", "description": "Balance transactions: deposits, withdrawals, payments."}]
