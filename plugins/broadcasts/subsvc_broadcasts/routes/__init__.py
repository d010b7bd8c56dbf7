"""The plugin's endpoints: ``web`` (API key) and ``admin`` (cabinet administrators)."""
