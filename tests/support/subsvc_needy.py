"""A test plugin that requires a plugin nobody installed."""

PLUGIN_NAME = "needy"
REQUIRES = ("ghost",)
