"""What the tariff operations need from the VPN panel: the ``tariffs_panel`` hook's facet
(a :class:`subsvc.panel.SquadAssignmentPanel`), which the panel plugin implements.

The port itself (the facet, the values it answers, :class:`PanelError`, the 503 and 502
answers) is :mod:`subsvc.panel`; this plugin keeps the rules of a squad sync
(:mod:`subsvc_tariffs.sync`).
"""

from __future__ import annotations

from subsvc.panel import ExternalSquad, PanelError, PanelHook, SquadAssignmentPanel

__all__ = ["GATEWAY", "ExternalSquad", "PanelError", "SquadAssignmentPanel"]

#: The hook through which the panel plugin hands over its facet.
GATEWAY: PanelHook[SquadAssignmentPanel] = PanelHook("tariffs_panel")
