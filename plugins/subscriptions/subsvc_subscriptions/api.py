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
- Selling (:mod:`subsvc_subscriptions.lifecycle`): :func:`resolve` (the subscription a
  cabinet request means, named by the query :data:`SubscriptionIdQuery`), :func:`of_user`;
  :func:`create_paid`, :func:`create_pending`, :func:`create_trial` on a tariff's
  :class:`Terms`; :func:`apply_tariff` (a purchase of another tariff), :func:`switch_tariff`,
  :func:`add_devices`, :func:`set_squads` (these publish, with ``panel_actions`` where given:
  :data:`PanelAction`); without an event :func:`set_daily_state`, :func:`set_traffic_used`,
  :func:`mark_expired` (an :class:`ExpiredRow` each). A second held subscription of a tariff
  raises :class:`DuplicateTariff` (409); ``MULTI_TARIFF_ENABLED`` is in
  :class:`SubscriptionSettings`.
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
from subsvc_subscriptions.lifecycle import (
    DUPLICATE_TARIFF,
    DuplicateTariff,
    ExpiredRow,
    SubscriptionIdQuery,
    Terms,
    apply_tariff,
    create_paid,
    create_pending,
    create_trial,
    mark_expired,
    of_user,
    resolve,
    set_daily_state,
    set_squads,
    set_traffic_used,
    switch_tariff,
)
from subsvc_subscriptions.models import HELD_STATUSES, PANEL_SYNC_SYNCED, Subscription, TrafficPurchase
from subsvc_subscriptions.panel_writes import (
    create_from_panel,
    set_panel_sync_state,
    write_panel_state,
    write_panel_statuses,
)
from subsvc_subscriptions.schemas import (
    MAX_DEVICES,
    MAX_TRAFFIC_GB,
    ChangeKind,
    PanelAction,
    SubscriptionChanged,
    SubscriptionStatus,
)
from subsvc_subscriptions.service import (
    END_OUT_OF_RANGE,
    EVENT_CHANGED,
    LIVE,
    Order,
    RuleViolation,
    actual_status,
    add_devices,
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
    "DUPLICATE_TARIFF",
    "END_OUT_OF_RANGE",
    "EVENT_CHANGED",
    "HELD_STATUSES",
    "LIVE",
    "MAX_DEVICES",
    "MAX_TRAFFIC_GB",
    "PANEL_SYNC_SYNCED",
    "ChangeKind",
    "DuplicateTariff",
    "ExpiredRow",
    "Order",
    "PanelAction",
    "PanelState",
    "RuleViolation",
    "Subscription",
    "SubscriptionChanged",
    "SubscriptionIdQuery",
    "SubscriptionSettings",
    "SubscriptionStatus",
    "Terms",
    "TrafficPurchase",
    "TrafficPurchaseNotFound",
    "activate",
    "actual_status",
    "add_devices",
    "add_squad",
    "add_traffic",
    "apply_tariff",
    "cancel",
    "create_from_panel",
    "create_or_replace",
    "create_paid",
    "create_pending",
    "create_trial",
    "disable",
    "extend",
    "get",
    "mark_expired",
    "mark_synced",
    "new_short_id",
    "of_user",
    "primary_of",
    "publish_change",
    "record_extras",
    "remove",
    "remove_squad",
    "remove_traffic_purchase",
    "resolve",
    "set_autopay",
    "set_daily_state",
    "set_device_limit",
    "set_end_date",
    "set_panel_sync_state",
    "set_squads",
    "set_traffic",
    "set_traffic_used",
    "shorten",
    "switch_tariff",
    "take_panel_state",
    "write_panel_state",
    "write_panel_statuses",
]
