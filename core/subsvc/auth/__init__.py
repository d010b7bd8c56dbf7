"""Authentication: principals, API tokens (see `subsvc.tokens`), cabinet JWTs, permission checks."""
