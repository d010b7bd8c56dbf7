"""Plugin `ticket_notifications`: what it contributes to subsvc."""

from subsvc.jobs import Job
from subsvc.manifest import Plugin
from subsvc_ticket_notifications import hooks
from subsvc_ticket_notifications.deliveries import SWEEP_SECONDS, deliver_job
from subsvc_ticket_notifications.models import (
    AdminRead,
    AdminReadMark,
    MessengerDelivery,
    SlaReminder,
    TicketNotification,
)
from subsvc_ticket_notifications.recording import DELIVER_JOB
from subsvc_ticket_notifications.routes import ADMIN_TAG, USER_TAG, admin_router, user_router
from subsvc_ticket_notifications.sla import interval, sla_job

SLA_JOB = "ticket_notifications.sla_reminders"

plugin = Plugin(
    models=[TicketNotification, AdminReadMark, AdminRead, MessengerDelivery, SlaReminder],
    endpoints=[user_router, admin_router],
    tags={
        USER_TAG: "A cabinet user's notifications of their support tickets.",
        ADMIN_TAG: "Administrators' notifications of support tickets, read state per administrator.",
    },
    jobs=[
        Job(DELIVER_JOB, deliver_job, every=SWEEP_SECONDS),
        Job(SLA_JOB, sla_job, every=interval),
    ],
    hooks=[hooks],
)
