"""Plugin `panel`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_panel import hooks, local, service
from subsvc_panel.routes import endpoints
from subsvc_panel.settings import PanelSettings

plugin = Plugin(
    endpoints=endpoints,
    permissions={"panel": ["read", "sync", "manage"], "traffic": ["read", "export"]},
    tags={
        "panel": "The VPN panel: status, statistics, nodes, squads, inbounds, users' traffic.",
        "Cabinet Admin Panel": "Cabinet administrators' view of the VPN panel.",
        "Admin Traffic": "Cabinet administrators' traffic monitoring per user and node.",
    },
    settings=PanelSettings,
    hooks=[hooks],
    errors={service.NotFound: 404, local.NotFound: 404, service.ActionRefused: 400, local.Refused: 400},
)
