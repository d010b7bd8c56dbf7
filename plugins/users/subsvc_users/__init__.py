"""Users: the user record, lookups by id or messenger id, and the searchable list."""

__version__ = "0.1.0"
