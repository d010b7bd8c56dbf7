"""subsvc plugin `promo_offers`: personal promo offers, templates, log, broadcasts, the cabinet's offers."""

__version__ = "0.1.0"
