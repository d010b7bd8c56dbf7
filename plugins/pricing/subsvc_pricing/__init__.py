"""subsvc plugin `pricing`: the one pricing engine and the loaders of what it prices."""

__version__ = "0.1.0"
