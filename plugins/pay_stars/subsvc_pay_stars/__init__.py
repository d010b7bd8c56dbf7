"""subsvc plugin `pay_stars`: balance top-ups paid in the messenger's Stars (XTR)."""

__version__ = "0.1.0"
