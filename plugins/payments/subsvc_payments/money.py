"""Money as providers write it: rubles with two decimals (``"150.00"``, or a JSON number read
exactly) to exact integer kopeks and back, never through a float."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

KOPEK = Decimal("0.01")
DIGITS = 15  # rubles below 10^15: far above any payment, small enough to stay exact


def rubles_text(kopeks: int) -> str:
    """``15050`` kopeks -> ``"150.50"``: an amount as providers take it (two decimals)."""
    whole, cents = divmod(abs(kopeks), 100)
    return f"{'-' if kopeks < 0 else ''}{whole}.{cents:02d}"


def kopeks_of(rubles: object) -> int:
    """An amount in rubles as a provider reports it (``"150.00"``, ``150``, ``Decimal("150.5")``)
    in exact kopeks. Raises :class:`ValueError` for a float (read the JSON with exact numbers),
    a text that is no number, a number that is not finite or of 10^15 rubles or more, and a
    fraction of a kopek (however many digits it takes)."""
    if isinstance(rubles, bool) or not isinstance(rubles, int | str | Decimal):
        raise ValueError(f"not an exact amount: {rubles!r}")
    try:
        value = Decimal(rubles)
    except InvalidOperation:
        raise ValueError(f"not an amount: {rubles!r}") from None
    # the exponent, not arithmetic: abs() of "1e999999999" overflows the context
    if not value.is_finite() or value.adjusted() >= DIGITS:
        raise ValueError(f"not a usable amount: {rubles!r}")
    whole = value.quantize(KOPEK)
    if whole != value:  # compared exactly: "1.0000000000000000000000000001" (29 digits) is no 1.00
        raise ValueError(f"not a whole number of kopeks: {rubles!r}")
    return int(whole.scaleb(2))
