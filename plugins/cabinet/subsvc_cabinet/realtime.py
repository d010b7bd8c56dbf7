"""Balance and subscription changes pushed to the user's `/cabinet/ws` sockets, as flat
messages in the reference's shapes.

The messages are sent from event subscribers: they run once, on the instance that dispatches
the event (after its change was committed), and core's hub carries each message to the
user's sockets on every instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.applications import Starlette
from subsvc_billing.api import DEPOSIT, PAYMENT_COMPLETED, TRANSACTION_CREATED
from subsvc_subscriptions.api import EVENT_CHANGED

from subsvc.api import rubles
from subsvc.events import Event, EventBus
from subsvc.realtime import Hub
from subsvc.services import services

DEBITS = frozenset({"withdrawal", "subscription_payment", "gift_payment"})  # amounts shown negative
Message = dict[str, Any]


def balance_message(kind: str, payload: Mapping[str, Any]) -> Message:
    """``balance.topup`` / ``balance.change``: the amount (negative for a debit) and the new
    balance, in kopeks and rubles, and the description."""
    amount = abs(payload["amount_kopeks"])
    if payload["type"] in DEBITS:
        amount = -amount
    new_balance = payload["new_balance_kopeks"]
    return {
        "type": kind,
        "amount_kopeks": amount,
        "amount_rubles": rubles(amount),
        "new_balance_kopeks": new_balance,
        "new_balance_rubles": rubles(new_balance),
        "description": payload["description"],
    }


def subscription_message(payload: Mapping[str, Any]) -> Message:
    """The message of a ``subscription.changed`` event. Changes made by an administrator
    cost the user nothing, so amounts are 0; the event carries the new limits, not what was
    added, so ``devices_added`` / ``traffic_gb_added`` are null. Changes without a message
    of their own in the reference (squads, deactivation) are ``subscription.updated``."""
    change, subscription_id, end = payload["change"], payload["subscription_id"], payload["end_date"]
    free = {"amount_kopeks": 0, "amount_rubles": 0.0}
    if change in ("created", "replaced"):
        return {
            "type": "subscription.activated",
            "subscription_id": subscription_id,
            "expires_at": end,
            "tariff_name": None,
        }
    if change == "extended":
        return {
            "type": "subscription.renewed",
            "subscription_id": subscription_id,
            "new_expires_at": end,
            **free,
        }
    if change == "devices":
        return {
            "type": "subscription.devices_purchased",
            "devices_added": None,
            "new_device_limit": payload["device_limit"],
            **free,
        }
    if change == "traffic":
        return {
            "type": "subscription.traffic_purchased",
            "traffic_gb_added": None,
            "new_traffic_limit_gb": payload["traffic_limit_gb"],
            **free,
        }
    return {
        "type": "subscription.updated",
        "subscription_id": subscription_id,
        "change": change,
        "status": payload["status"],
        "expires_at": end,
    }


def subscribe(app: Starlette) -> None:
    """Send the user a message for each completed transaction and each subscription change."""
    hub: Hub = services(app).realtime
    events: EventBus = services(app).events

    async def on_payment(event: Event) -> None:
        if event.payload.get("is_completed", True):
            await hub.send_to_user(event.payload["user_id"], balance_message("balance.topup", event.payload))

    async def on_transaction(event: Event) -> None:
        payload = event.payload
        if payload["type"] != DEPOSIT and payload.get("is_completed", True):  # deposits: payment.completed
            await hub.send_to_user(payload["user_id"], balance_message("balance.change", payload))

    async def on_subscription(event: Event) -> None:
        await hub.send_to_user(event.payload["user_id"], subscription_message(event.payload))

    events.subscribe(PAYMENT_COMPLETED, on_payment)
    events.subscribe(TRANSACTION_CREATED, on_transaction)
    events.subscribe(EVENT_CHANGED, on_subscription)
