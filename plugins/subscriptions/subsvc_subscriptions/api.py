"""What other plugins may use of the subscriptions plugin (the rest is private).

- :class:`Subscription` and :class:`TrafficPurchase`, the ORM models: for reading and joining.
  Only this plugin writes them, through the service functions below (which publish the
  ``subscription.*`` events and keep the panel in step).
- Reading: :func:`get`, :func:`primary_of`, :func:`actual_status`, :func:`record_extras`,
  ``LIVE`` (the statuses that count as live).
- Changing: :func:`create_or_replace` (with an :class:`Order`), :func:`extend`,
  :func:`add_traffic`, :func:`add_squad`, :func:`remove_squad`, :func:`disable`,
  :func:`publish_change`; a broken rule raises :class:`RuleViolation`.
- An administrator's direct changes (:mod:`subsvc_subscriptions.admin_changes`):
  :func:`shorten`, :func:`set_end_date`, :func:`set_traffic`, :func:`set_device_limit`,
  :func:`set_autopay`, :func:`cancel`, :func:`activate`, :func:`remove_traffic_purchase`
  (:class:`TrafficPurchaseNotFound`), :func:`remove` (rows for good), and the VPN panel's
  state: :func:`take_panel_state` (a :class:`PanelState`), :func:`mark_synced`.
- The panel integration's bulk writes (:mod:`subsvc_subscriptions.panel_writes`, no events):
  :func:`write_panel_state`, :func:`write_panel_statuses`, :func:`create_from_panel`,
  :func:`set_panel_sync_state`.
"""

from __future__ import annotations

from subsvc_subscriptions.admin_changes import (
    PanelState,
    TrafficPurchaseNotFound,
    activate,
    cancel,
    mark_synced,
    remove,
    remove_traffic_purchase,
    set_autopay,
    set_device_limit,
    set_end_date,
    set_traffic,
    shorten,
    take_panel_state,
)
from subsvc_subscriptions.models import PANEL_SYNC_SYNCED, Subscription, TrafficPurchase
from subsvc_subscriptions.panel_writes import (
    create_from_panel,
    set_panel_sync_state,
    write_panel_state,
    write_panel_statuses,
)
from subsvc_subscriptions.schemas import MAX_DEVICES, MAX_TRAFFIC_GB, ChangeKind, SubscriptionStatus
from subsvc_subscriptions.service import (
    END_OUT_OF_RANGE,
    EVENT_CHANGED,
    LIVE,
    Order,
    RuleViolation,
    actual_status,
    add_squad,
    add_traffic,
    create_or_replace,
    disable,
    extend,
    get,
    new_short_id,
    primary_of,
    publish_change,
    record_extras,
    remove_squad,
)
from subsvc_subscriptions.settings import SubscriptionSettings

__all__ = [
    "END_OUT_OF_RANGE",
    "EVENT_CHANGED",
    "LIVE",
    "MAX_DEVICES",
    "MAX_TRAFFIC_GB",
    "PANEL_SYNC_SYNCED",
    "ChangeKind",
    "Order",
    "PanelState",
    "RuleViolation",
    "Subscription",
    "SubscriptionSettings",
    "SubscriptionStatus",
    "TrafficPurchase",
    "TrafficPurchaseNotFound",
    "activate",
    "actual_status",
    "add_squad",
    "add_traffic",
    "cancel",
    "create_from_panel",
    "create_or_replace",
    "disable",
    "extend",
    "get",
    "mark_synced",
    "new_short_id",
    "primary_of",
    "publish_change",
    "record_extras",
    "remove",
    "remove_squad",
    "remove_traffic_purchase",
    "set_autopay",
    "set_device_limit",
    "set_end_date",
    "set_panel_sync_state",
    "set_traffic",
    "shorten",
    "take_panel_state",
    "write_panel_state",
    "write_panel_statuses",
]
