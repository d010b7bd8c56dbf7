"""subsvc plugin `subscriptions`: users' VPN subscriptions and the rules that change them."""

__version__ = "0.1.0"
