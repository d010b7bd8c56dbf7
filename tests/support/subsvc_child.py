"""A test plugin that requires the probe plugin and uses its extension point."""

from subsvc.hookspecs import hookimpl

PLUGIN_NAME = "child"
REQUIRES = ("probe",)


@hookimpl
def probe_extra_fields() -> dict[str, object]:
    return {"child": True}
