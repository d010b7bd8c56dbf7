"""What other plugins may use of the addons plugin (the rest is private): the services its
cabinet operations call, for the mini app's equivalents.

- Devices: :func:`device_list`, :func:`delete_device`, :func:`delete_all_devices`,
  :func:`rename_device`.
- The link and the traffic now: :func:`connection_link`, :func:`revoke`,
  :func:`refresh_traffic`.

Refusals are :class:`subsvc.api.HTTPError` with the cabinet's status and text.
"""

from __future__ import annotations

from subsvc_addons.devices import delete_all_devices, delete_device, device_list, rename_device
from subsvc_addons.links import connection_link, revoke
from subsvc_addons.schemas import ConnectionLink, DeviceListResponse, TrafficRefresh
from subsvc_addons.traffic import refresh_traffic

__all__ = [
    "ConnectionLink",
    "DeviceListResponse",
    "TrafficRefresh",
    "connection_link",
    "delete_all_devices",
    "delete_device",
    "device_list",
    "refresh_traffic",
    "rename_device",
    "revoke",
]
