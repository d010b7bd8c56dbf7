"""subsvc plugin `broadcasts`: messages to a target segment, sent in the background."""

__version__ = "0.1.0"
