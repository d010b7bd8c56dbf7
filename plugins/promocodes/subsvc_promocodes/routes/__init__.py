"""The plugin's endpoints: Web API (`web`), cabinet administration (`admin`), cabinet (`cabinet`)."""

from __future__ import annotations

from subsvc.api import Endpoint
from subsvc_promocodes.routes import admin, cabinet, web

endpoints: list[Endpoint] = [*web.router.endpoints, *admin.router.endpoints, *cabinet.router.endpoints]
