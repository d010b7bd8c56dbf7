"""What the administrators' panel operations need from the VPN panel: the
``cabinet_admin_panel`` hook's facet (a :class:`subsvc.panel.AccountsPanel` over our users
and subscriptions), which the panel plugin implements.

The port itself (the facet, the values it answers, :class:`PanelError`, the 503 and 502
answers) is :mod:`subsvc.panel`; this plugin keeps the rules: which subscription is pushed,
how the panel's answer changes our rows, what differs (:mod:`subsvc_cabinet_admin_users.sync`).
"""

from __future__ import annotations

from typing import TypeAlias

from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc.panel import (
    GIB,
    AccountsPanel,
    NodeUsage,
    PanelDevice,
    PanelError,
    PanelHook,
    PanelUser,
    PushOptions,
    PushResult,
    SubscriptionRequest,
)

__all__ = [
    "GATEWAY",
    "GIB",
    "NodeUsage",
    "PanelDevice",
    "PanelError",
    "PanelGateway",
    "PanelUser",
    "PushOptions",
    "PushResult",
    "SubscriptionRequest",
]

PanelGateway: TypeAlias = AccountsPanel[User, Subscription]
#: The hook through which the panel plugin hands over its facet.
GATEWAY: PanelHook[PanelGateway] = PanelHook("cabinet_admin_panel")
