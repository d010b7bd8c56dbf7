"""The billing wire contract: balance adjustment, deposit, transaction records, event payloads."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, computed_field

from subsvc.api import rubles

MAX_AMOUNT_KOPEKS = 100_000_000
DEFAULT_ADJUSTMENT_DESCRIPTION = "Корректировка через веб-API"
DEFAULT_DEPOSIT_DESCRIPTION = "Пополнение через веб-API"


class BalanceUpdateRequest(BaseModel):
    """A manual balance change: positive credits, negative debits."""

    amount_kopeks: int = Field(ge=-MAX_AMOUNT_KOPEKS, le=MAX_AMOUNT_KOPEKS)
    description: str | None = DEFAULT_ADJUSTMENT_DESCRIPTION
    create_transaction: bool = True


class DepositRequest(BaseModel):
    """A credit recorded as a real payment; ``idempotency_key`` makes retries safe."""

    amount_kopeks: int = Field(gt=0, le=MAX_AMOUNT_KOPEKS)
    idempotency_key: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=500)
    notify_user: bool = True
    apply_topup_bonuses: bool = True


class DepositResponse(BaseModel):
    """The outcome of a deposit; a repeated idempotency key answers the first outcome with
    ``duplicate=true``."""

    success: bool = True
    duplicate: bool
    user_id: int
    messenger_id: int | None
    transaction_id: int
    amount_kopeks: int
    old_balance_kopeks: int
    new_balance_kopeks: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def new_balance_rubles(self) -> float:
        return rubles(self.new_balance_kopeks)


class TransactionResponse(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    user_id: int
    type: str
    amount_kopeks: int
    description: str | None = None
    payment_method: str | None = None
    external_id: str | None = None
    is_completed: bool
    created_at: datetime
    completed_at: datetime | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def amount_rubles(self) -> float:
        return rubles(self.amount_kopeks)


class TransactionSummary(BaseModel):
    """A transaction as a user's history lists it: the fields the cabinet's history and the
    administrators' view of a user start with."""

    id: int
    type: str
    amount_kopeks: int
    amount_rubles: float
    description: str | None = None
    payment_method: str | None = None


class TransactionEvent(BaseModel):
    """Payload of ``transaction.created`` and ``payment.completed``.

    ``notify_user`` and ``apply_topup_bonuses`` carry the caller's wishes to the plugins that
    message users or pay top-up bonuses; billing itself does neither.
    """

    transaction_id: int
    user_id: int
    type: str
    amount_kopeks: int
    amount_rubles: float
    payment_method: str | None
    external_id: str | None
    is_completed: bool
    description: str | None
    created_at: datetime
    new_balance_kopeks: int
    notify_user: bool = False
    apply_topup_bonuses: bool = False
