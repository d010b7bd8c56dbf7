"""subsvc plugin `pay_yookassa`: top-ups through YooKassa (card, SBP), its notifications and saved cards."""

__version__ = "0.1.0"
