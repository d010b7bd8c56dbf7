"""Money as providers write it: rubles with two decimals (``"150.00"``, or a JSON number read
exactly) to exact integer kopeks and back, never through a float."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

KOPEKS_PER_RUBLE = Decimal(100)
LARGEST = Decimal(10) ** 15  # rubles: far above any payment, small enough to stay exact


def rubles_text(kopeks: int) -> str:
    """``15050`` kopeks -> ``"150.50"``: an amount as providers take it (two decimals)."""
    whole, cents = divmod(abs(kopeks), 100)
    return f"{'-' if kopeks < 0 else ''}{whole}.{cents:02d}"


def kopeks_of(rubles: object) -> int:
    """An amount in rubles as a provider reports it (``"150.00"``, ``150``, ``Decimal("150.5")``)
    in exact kopeks. Raises :class:`ValueError` for a float (read the JSON with exact numbers),
    a text that is no number, a number that is not finite or beyond 10^15, and a fraction of a
    kopek."""
    if isinstance(rubles, bool) or not isinstance(rubles, int | str | Decimal):
        raise ValueError(f"not an exact amount: {rubles!r}")
    try:
        value = Decimal(rubles)
    except InvalidOperation:
        raise ValueError(f"not an amount: {rubles!r}") from None
    if not value.is_finite() or abs(value) > LARGEST:
        raise ValueError(f"not a usable amount: {rubles!r}")
    kopeks = value * KOPEKS_PER_RUBLE
    if kopeks != kopeks.to_integral_value():
        raise ValueError(f"not a whole number of kopeks: {rubles!r}")
    return int(kopeks)
