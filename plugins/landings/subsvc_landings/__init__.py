"""subsvc plugin `landings`: landing pages and guest purchases (gifts)."""

__version__ = "0.1.0"
