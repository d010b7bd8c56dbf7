"""What other plugins may use of the addons plugin (the rest is private): the services its
cabinet operations call, for the mini app's equivalents.

- Devices: :func:`device_list`, :func:`delete_device`, :func:`delete_all_devices`,
  :func:`rename_device`; bought: :func:`device_price`, :func:`purchase_devices`,
  :func:`save_devices_cart`; the limit reduced: :func:`device_reduction_info`,
  :func:`reduce_devices`.
- Traffic: :func:`traffic_packages`, :func:`purchase_traffic`, :func:`save_traffic_cart`,
  :func:`switch_traffic` (a classic subscription's tier), :func:`refresh_traffic`.
- Countries: :func:`available_countries`, :func:`update_countries`.
- The link: :func:`connection_link`, :func:`revoke`.

Each takes ``(app, session, user_id, subscription_id, ...)`` but the device names. Refusals
are :class:`subsvc.api.HTTPError` with the cabinet's status and detail (a 402 short of money
after the cart was saved and committed: its detail is the ``insufficient_funds`` object).
"""

from __future__ import annotations

from subsvc_addons.buying import (
    purchase_devices,
    purchase_traffic,
    save_devices_cart,
    save_traffic_cart,
    switch_traffic,
    update_countries,
)
from subsvc_addons.countries import countries as available_countries
from subsvc_addons.device_sale import device_price, reduce_devices
from subsvc_addons.device_sale import reduction_info as device_reduction_info
from subsvc_addons.devices import delete_all_devices, delete_device, device_list, rename_device
from subsvc_addons.links import connection_link, revoke
from subsvc_addons.sale_schemas import (
    CartSaved,
    CountriesResponse,
    CountriesUpdated,
    DevicePrice,
    DeviceReduced,
    DeviceReductionInfo,
    DevicesPurchased,
    TrafficPackage,
    TrafficPurchased,
    TrafficSwitched,
)
from subsvc_addons.schemas import ConnectionLink, DeviceListResponse, TrafficRefresh
from subsvc_addons.traffic import refresh_traffic
from subsvc_addons.traffic_sale import packages as traffic_packages

__all__ = [
    "CartSaved",
    "ConnectionLink",
    "CountriesResponse",
    "CountriesUpdated",
    "DeviceListResponse",
    "DevicePrice",
    "DeviceReduced",
    "DeviceReductionInfo",
    "DevicesPurchased",
    "TrafficPackage",
    "TrafficPurchased",
    "TrafficRefresh",
    "TrafficSwitched",
    "available_countries",
    "connection_link",
    "delete_all_devices",
    "delete_device",
    "device_list",
    "device_price",
    "device_reduction_info",
    "purchase_devices",
    "purchase_traffic",
    "reduce_devices",
    "refresh_traffic",
    "rename_device",
    "revoke",
    "save_devices_cart",
    "save_traffic_cart",
    "switch_traffic",
    "traffic_packages",
    "update_countries",
]
