"""Plugin `tickets`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_tickets.events import EVENTS
from subsvc_tickets.models import Ticket, TicketMessage
from subsvc_tickets.service import TicketError

plugin = Plugin(
    models=[Ticket, TicketMessage],
    permissions={"tickets": ["read", "reply", "close"]},
    events=EVENTS,
    errors={TicketError: TicketError.answer},
)
