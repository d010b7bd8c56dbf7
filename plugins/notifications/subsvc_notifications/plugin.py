"""Plugin `notifications`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_notifications import merging
from subsvc_notifications.models import SubscriptionEvent
from subsvc_notifications.routes import router
from subsvc_notifications.schemas import SubscriptionEventRecorded
from subsvc_notifications.service import EVENT_RECORDED, ReferenceNotFound

plugin = Plugin(
    models=[SubscriptionEvent],
    endpoints=[router],
    tags={"notifications": "The log of subscription events the bot reports."},
    events={EVENT_RECORDED: SubscriptionEventRecorded},
    hooks=[merging],
    errors={ReferenceNotFound: 404},
)
