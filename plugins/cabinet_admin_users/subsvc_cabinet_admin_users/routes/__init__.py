"""The Cabinet Admin Users endpoints (`/cabinet/admin/users...`), one module per concern."""

from __future__ import annotations

from subsvc.api import Endpoint
from subsvc_cabinet_admin_users.routes import (
    manage,
    messages,
    panel,
    read,
    referrer,
    subscription,
    timeline,
    user_subscriptions,
)

endpoints: list[Endpoint] = [
    *user_subscriptions.router.endpoints,  # `/by-panel/...` before `/{user_id}`
    *read.router.endpoints,
    *manage.router.endpoints,
    *subscription.router.endpoints,
    *panel.router.endpoints,
    *timeline.router.endpoints,
    *referrer.router.endpoints,
    *messages.router.endpoints,
]
