"""Money on the wire: amounts are kept in kopeks (integers) and also answered in rubles."""

from __future__ import annotations


def rubles(kopeks: int) -> float:
    """``150050`` kopeks -> ``1500.5`` rubles (two decimals), as answers show amounts."""
    return round(kopeks / 100, 2)


def price_label(kopeks: int) -> str:
    """``150000`` -> ``"1 500 ₽"``, ``150050`` -> ``"1 500.50 ₽"``: whole rubles grouped by
    thousands, kopeks shown only when there are some (the messages' and menus' format)."""
    whole, part = divmod(kopeks, 100)
    shown = f"{whole:,}".replace(",", " ")
    return f"{shown}.{part:02d} ₽" if part else f"{shown} ₽"
