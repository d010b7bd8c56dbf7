"""Wire models of the Stars invoice (the contract's shapes)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class StarsInvoiceRequest(BaseModel):
    """Request to create a messenger Stars invoice for a balance top-up."""

    amount_kopeks: int = Field(ge=100, le=2_000_000_000, description="Amount in kopeks (min 1 ruble)")


class StarsInvoiceResponse(BaseModel):
    """Response with the messenger Stars invoice link."""

    invoice_url: str
    stars_amount: int
    amount_kopeks: int
