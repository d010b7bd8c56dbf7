"""Extension points of the payments plugin, for the payment provider plugins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette

from subsvc.hookspecs import hookspec


@dataclass(frozen=True)
class PaymentMethodInfo:
    """A payment method a provider plugin offers the cabinet's top-up screen: its ``id``
    (the provider's name, e.g. ``yookassa``), the name and description shown, the amounts
    it takes, its sub-options (``[{"id", "name", "description"}]``, e.g. card and SBP) and
    the amounts offered as one-tap choices."""

    id: str
    name: str
    min_amount_kopeks: int
    max_amount_kopeks: int
    description: str | None = None
    options: Sequence[Mapping[str, Any]] | None = None
    quick_amounts: Sequence[int] = field(default_factory=tuple)
    open_url_direct: bool = False


@hookspec
def payments_providers(app: Starlette) -> Sequence[PaymentMethodInfo] | None:
    """Return the payment methods of a provider plugin, for ``app``: none (``None`` or an
    empty list) while the provider is not configured. Called on every
    ``GET /cabinet/balance/payment-methods``, in the plugins' order; read settings, not the
    network. A method id answered by an earlier plugin is not listed twice."""
