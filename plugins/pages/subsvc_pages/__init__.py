"""subsvc plugin `pages`: service rules (versioned), public offer, privacy policy and FAQ."""

__version__ = "0.1.0"
