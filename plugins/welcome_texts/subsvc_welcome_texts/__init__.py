"""subsvc plugin `welcome_texts`: the texts the bot greets new users with."""

__version__ = "0.1.0"
