"""Plugin `webhooks`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_webhooks import hooks
from subsvc_webhooks.delivery import DELIVER
from subsvc_webhooks.models import Webhook, WebhookDelivery
from subsvc_webhooks.routes import router
from subsvc_webhooks.service import WEBHOOK_NOT_FOUND, WebhookNotFound
from subsvc_webhooks.settings import WebhookSettings

plugin = Plugin(
    models=[Webhook, WebhookDelivery],
    endpoints=[router],
    permissions={"webhooks": ["read", "manage"]},
    tags={
        "webhooks": "Outgoing webhooks: endpoints that receive events (one type or `*`), signed, retried "
        "with backoff, their delivery attempts and totals."
    },
    settings=WebhookSettings,
    jobs=[DELIVER],
    errors={WebhookNotFound: (404, WEBHOOK_NOT_FOUND)},
    hooks=[hooks],
)
