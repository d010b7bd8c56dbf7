"""The Cabinet Admin Users endpoints (`/cabinet/admin/users...`), one module per concern."""

from __future__ import annotations

from subsvc.api import Endpoint
from subsvc_cabinet_admin_users.routes import manage, panel, read, subscription

endpoints: list[Endpoint] = [
    *read.router.endpoints,
    *manage.router.endpoints,
    *subscription.router.endpoints,
    *panel.router.endpoints,
]
