"""subsvc plugin `panel_sync`: subscriptions mirrored into the VPN panel, and full syncs."""

__version__ = "0.1.0"
