"""subsvc plugin `sales`: buying subscriptions from the balance, saved carts, one trial per user."""

__version__ = "0.1.0"
