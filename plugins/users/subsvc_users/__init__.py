"""Users: the user record, lookups by id or messenger id, and the searchable list."""
