"""Plugin `servers`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_servers import hooks, hookspecs
from subsvc_servers.models import Server, ServerPromoGroup
from subsvc_servers.routes import cabinet, web
from subsvc_servers.routes.cabinet import TAG
from subsvc_servers.settings import ServersSettings

plugin = Plugin(
    models=[Server, ServerPromoGroup],
    endpoints=[web.router, cabinet.router],
    permissions={"servers": ["read", "edit"]},
    tags={
        "servers": "Servers: panel squads offered for sale, their availability, promo-group "
        "restrictions, statistics and connected users.",
        TAG: "Cabinet administrators' servers: list, detail, update, toggles, stats, sync.",
    },
    settings=ServersSettings,
    hookspecs=hookspecs,
    hooks=[hooks],
)
