"""subsvc plugin `ticket_notifications`: what support tickets tell users and administrators."""

__version__ = "0.1.0"
