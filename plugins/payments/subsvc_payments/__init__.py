"""subsvc plugin `payments`: payment records of every provider and the exactly-once crediting pipeline."""

__version__ = "0.1.0"
