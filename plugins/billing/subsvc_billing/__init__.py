"""subsvc plugin `billing`: user balances (adjustments, idempotent deposits) and transactions."""

__version__ = "0.1.0"
