"""What other plugins may use of the billing plugin (the rest is private).

Every balance change goes through :func:`move_balance` (a change and its transaction),
:func:`adjust_balance` (a manual one) or :func:`change_balance` with :func:`record_transaction`,
in the caller's transaction; :func:`deposit` credits as a real
payment, idempotent by a key (:class:`IdempotencyConflict` when the key is another's).
:class:`Transaction` is the ORM model, for reading; ``DEPOSIT``, ``WITHDRAWAL`` and
``CAMPAIGN_BONUS`` (a campaign's bonus, not revenue) its types;
:class:`TransactionSummary` starts a transaction's wire shape in a history.
"""

from __future__ import annotations

from subsvc_billing.models import CAMPAIGN_BONUS, DEPOSIT, WITHDRAWAL, Transaction
from subsvc_billing.schemas import TransactionSummary
from subsvc_billing.service import (
    PAYMENT_COMPLETED,
    TRANSACTION_CREATED,
    IdempotencyConflict,
    InsufficientBalance,
    TransactionFilter,
    adjust_balance,
    change_balance,
    deposit,
    list_transactions,
    move_balance,
    record_transaction,
)

__all__ = [
    "CAMPAIGN_BONUS",
    "DEPOSIT",
    "PAYMENT_COMPLETED",
    "TRANSACTION_CREATED",
    "WITHDRAWAL",
    "IdempotencyConflict",
    "InsufficientBalance",
    "Transaction",
    "TransactionFilter",
    "TransactionSummary",
    "adjust_balance",
    "change_balance",
    "deposit",
    "list_transactions",
    "move_balance",
    "record_transaction",
]
