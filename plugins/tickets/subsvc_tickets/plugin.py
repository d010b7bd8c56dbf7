"""Plugin `tickets`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_tickets import merging
from subsvc_tickets.events import EVENTS
from subsvc_tickets.models import Ticket, TicketMessage
from subsvc_tickets.routes import routers
from subsvc_tickets.service import TicketError

plugin = Plugin(
    models=[Ticket, TicketMessage],
    endpoints=routers,
    permissions={"tickets": ["read", "reply", "close"]},
    tags={
        "support": "Support tickets (Web API): list, detail, status, priority, reply blocks, replies, media.",
        "Cabinet Tickets": "The cabinet user's own support tickets: list, create, detail, messages.",
        "Cabinet Admin Tickets": "Support tickets for cabinet administrators: statistics, list, detail, "
        "replies, status and priority.",
    },
    events=EVENTS,
    errors={TicketError: TicketError.answer},
    hooks=[merging],
)
