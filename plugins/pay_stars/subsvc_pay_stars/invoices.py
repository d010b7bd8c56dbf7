"""What a Stars invoice asks and what a payment of it is worth: exact decimals, no float.

An invoice fixes its own price: ``stars`` stars for ``amount_kopeks`` (the payment's amount).
Both travel in its payload, ``stars-topup:<payment id>:<stars>:<kopeks>``, which the messenger
hands back untouched in the pre-checkout query and the paid update; so the check of a payment
never depends on the rate in force when it arrives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CURRENCY = "XTR"
PAYLOAD_PREFIX = "stars-topup:"
_PAYLOAD = re.compile(rf"^{PAYLOAD_PREFIX}([1-9][0-9]{{0,18}}):([1-9][0-9]{{0,9}}):([1-9][0-9]{{0,10}})$")


def _half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def stars_for(amount_kopeks: int, rate_rub: Decimal) -> int:
    """Stars asked for ``amount_kopeks`` at ``rate_rub`` rubles a star: the rubles divided by
    the rate, rounded half up, at least one."""
    return max(1, _half_up(Decimal(amount_kopeks) / 100 / rate_rub))


def kopeks_for(stars: int, rate_rub: Decimal) -> int:
    """Kopeks ``stars`` stars are worth at ``rate_rub`` (rounded half up to the kopek)."""
    return _half_up(stars * rate_rub * 100)


@dataclass(frozen=True)
class Invoice:
    """The invoice of local payment ``payment_id``: ``stars`` stars for ``amount_kopeks``."""

    payment_id: int
    stars: int
    amount_kopeks: int

    @classmethod
    def for_payment(cls, payment_id: int, amount_kopeks: int, rate_rub: Decimal) -> Invoice:
        """The invoice of a payment: its amount, in whole stars at the rate."""
        return cls(payment_id, stars_for(amount_kopeks, rate_rub), amount_kopeks)

    @property
    def payload(self) -> str:
        """What the messenger carries back to us (at most 128 bytes)."""
        return f"{PAYLOAD_PREFIX}{self.payment_id}:{self.stars}:{self.amount_kopeks}"

    @classmethod
    def parse(cls, payload: str) -> Invoice | None:
        """The invoice a payload names, or ``None`` for a payload that is not one of ours."""
        found = _PAYLOAD.match(payload)
        if found is None:
            return None
        payment_id, stars, kopeks = (int(part) for part in found.groups())
        return cls(payment_id, stars, kopeks)

    def worth(self, stars: int) -> int:
        """Kopeks ``stars`` stars paid for this invoice are worth: its amount for its own
        stars, else the same share of it (rounded half up), which differs from the amount by
        at least a kopek as long as a star is worth at least one (``STARS_RATE_RUB`` >= 0.01)."""
        if stars == self.stars:
            return self.amount_kopeks
        return _half_up(Decimal(stars) * self.amount_kopeks / self.stars)
