"""What other plugins may use of the servers plugin (the rest is private).

:class:`Server` and :class:`ServerPromoGroup` (the groups a server is restricted to; none:
open to every group), the ORM models, for reading; :func:`sync_with_panel` imports the panel's
squads; :func:`squad_counts`, :func:`connects` and :func:`dialect_of` count users per squad.
"""

from __future__ import annotations

from subsvc_servers.models import Server, ServerPromoGroup
from subsvc_servers.panel import sync_with_panel
from subsvc_servers.queries import connects, dialect_of, squad_counts

__all__ = [
    "Server",
    "ServerPromoGroup",
    "connects",
    "dialect_of",
    "squad_counts",
    "sync_with_panel",
]
