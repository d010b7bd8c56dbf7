"""What ``GET /health/unified`` reports of a plugin's incoming webhooks (the
``health_webhooks`` hook): a payment provider's notifications, the messenger's updates,
the VPN panel's events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

WebhookGroup = Literal["payment", "messenger", "panel"]


@dataclass(frozen=True)
class WebhookStatus:
    """One incoming webhook: its ``group``, its ``name`` (e.g. the payment provider's), whether
    it is ``configured`` (its credentials set), and the ``path`` it is served at (``None``
    where this service does not receive it)."""

    group: WebhookGroup
    name: str
    configured: bool
    path: str | None = None
