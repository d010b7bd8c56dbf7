"""A test plugin that requires the probe plugin."""

PLUGIN_NAME = "child"
REQUIRES = ("probe",)
