"""Wire models of the saved cards (the contract's shapes)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class SavedCardResponse(BaseModel):
    """Saved payment method (card) for recurrent payments."""

    id: int
    method_type: str
    card_last4: str | None = None
    card_type: str | None = None
    title: str | None = None
    created_at: datetime


class SavedCardsListResponse(BaseModel):
    """List of saved payment methods."""

    cards: list[SavedCardResponse]
    recurrent_enabled: bool = False


class SavedCardDeleted(BaseModel):
    """A card unlinked."""

    success: bool = True
    message: str = Field(description="What was done")
