"""Plugin `cabinet`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet import hooks, hookspecs
from subsvc_cabinet.routes import balance, multi, subscription
from subsvc_cabinet.settings import CabinetSettings

plugin = Plugin(
    endpoints=[subscription, multi, balance],
    tags={
        "Cabinet Subscription": "The cabinet user's subscriptions.",
        "Cabinet Multi-Tariff": "The user's several subscriptions (release 4.1.0).",
        "Cabinet Balance": "The cabinet user's balance and its history.",
    },
    settings=CabinetSettings,
    hookspecs=hookspecs,
    hooks=[hooks],
)
