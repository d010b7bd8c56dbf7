"""Endpoints: ``cabinet`` (logins, sessions, the caller) and ``web`` (the bot's confirmations)."""
