"""subsvc plugin `promocodes`: promo codes and their activation from the cabinet."""

__version__ = "0.1.0"
