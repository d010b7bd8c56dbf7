"""subsvc plugin `webhooks`: outgoing webhooks whose deliveries are recorded with the event
that raised them, sent in the background, signed, retried with backoff, never lost."""

__version__ = "0.1.0"
