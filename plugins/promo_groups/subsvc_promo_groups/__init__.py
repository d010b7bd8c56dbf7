"""Promo groups: discount groups; every user belongs to one (a default group exists)."""

__version__ = "0.1.0"
