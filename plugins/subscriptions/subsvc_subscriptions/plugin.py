"""Plugin `subscriptions`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_subscriptions import hooks, merging, service
from subsvc_subscriptions.models import Subscription, TrafficPurchase
from subsvc_subscriptions.routes import router, users_router
from subsvc_subscriptions.schemas import SubscriptionChanged
from subsvc_subscriptions.settings import SubscriptionSettings

plugin = Plugin(
    models=[Subscription, TrafficPurchase],
    endpoints=[router, users_router],
    permissions={"users": ["read", "subscription"]},
    tags={
        "subscriptions": (
            "Subscriptions: create or replace, extend, add traffic, devices and squads, deactivate."
        )
    },
    settings=SubscriptionSettings,
    events={service.EVENT_CHANGED: SubscriptionChanged},
    errors={service.RuleViolation: 400, service.SubscriptionNotFound: 404},
    hooks=[hooks, merging],
)
