"""subsvc plugin `pinned_messages`: the message shown at /start (at most one active), and its
broadcast (send and pin) and unpin in every user's chat, sent by a background job."""

__version__ = "0.1.0"
