"""subsvc plugin `notifications`: the log of subscription events the bot reports."""

__version__ = "0.1.0"
