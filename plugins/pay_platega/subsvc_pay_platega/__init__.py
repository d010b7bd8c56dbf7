"""subsvc plugin `pay_platega`: balance top-ups through Platega (SBP QR, cards, crypto)."""

__version__ = "0.1.0"
