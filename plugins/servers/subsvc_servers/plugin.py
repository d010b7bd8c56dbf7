"""Plugin `servers`: what it contributes to subsvc."""

from typing import Any

from subsvc.manifest import Plugin
from subsvc_servers import hooks, hookspecs
from subsvc_servers.models import Server, ServerPromoGroup
from subsvc_servers.routes import cabinet, web
from subsvc_servers.routes.cabinet import TAG
from subsvc_servers.service import ServerInUse, SquadTaken, UnknownPromoGroups
from subsvc_servers.settings import ServersSettings


def _unknown_groups(exc: UnknownPromoGroups) -> tuple[int, Any]:
    return 400, "Promo groups not found: " + ", ".join(str(group_id) for group_id in exc.args[0])


def _squad_taken(exc: SquadTaken) -> tuple[int, Any]:
    return 409, f"Server with squad UUID {exc.args[0]} already exists"


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
    errors={UnknownPromoGroups: _unknown_groups, SquadTaken: _squad_taken, ServerInUse: 409},
)
