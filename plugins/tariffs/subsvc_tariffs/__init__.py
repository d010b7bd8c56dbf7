"""subsvc plugin `tariffs`: the catalogue of subscription plans and its cabinet admin API."""

__version__ = "0.1.0"
