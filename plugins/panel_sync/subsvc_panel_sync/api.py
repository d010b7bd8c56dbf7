"""What other plugins may use of the panel_sync plugin (the rest is private).

- :class:`PanelSyncState`, the ORM model of its durable queue (one row per subscription,
  ``version`` counting its committed changes, ``synced_version`` those pushed): for reading,
  e.g. a test counting the changes a sale queued. Only this plugin writes it.
"""

from __future__ import annotations

from subsvc_panel_sync.models import PanelSyncState

__all__ = ["PanelSyncState"]
