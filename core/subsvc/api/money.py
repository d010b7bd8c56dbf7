"""Money on the wire: amounts are kept in kopeks (integers) and also answered in rubles."""

from __future__ import annotations


def rubles(kopeks: int) -> float:
    """``150050`` kopeks -> ``1500.5`` rubles (two decimals), as answers show amounts."""
    return round(kopeks / 100, 2)
