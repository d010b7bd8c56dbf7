"""The plugin's endpoints (tag Cabinet Auth): registration and verification, password login
and reset, e-mail change, merge with the account holding an address."""

from __future__ import annotations

from subsvc.api import Endpoint
from subsvc_cabinet_email.routes import change, merge, password, registration

endpoints: list[Endpoint] = [
    *registration.router.endpoints,
    *password.router.endpoints,
    *change.router.endpoints,
    *merge.router.endpoints,
]
