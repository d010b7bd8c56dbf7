"""Plugin `tickets`: support tickets and their messages (see README.md)."""
