"""subsvc plugin `cabinet_auth`: cabinet sessions and the messenger's ways to log in."""

__version__ = "0.1.0"
