"""subsvc plugin `cabinet`: the cabinet user's subscription and balance reads, and the
realtime messages of balance and subscription changes."""

__version__ = "0.1.0"
