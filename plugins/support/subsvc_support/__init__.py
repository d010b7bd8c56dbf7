"""subsvc plugin `support`: the support configuration (mode, SLA, notification toggles, contact)."""

__version__ = "0.1.0"
