"""Web API tokens: the record, hashing, verification with a cache, and the `/tokens` routes."""
