"""Promo groups: discount groups; every user belongs to one (a default group exists)."""
