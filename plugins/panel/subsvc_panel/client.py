"""The VPN panel's REST client: the calls the service makes to the panel.

``app.state.panel`` is a :class:`PanelClient` built from the plugin's settings
(``PANEL_API_URL``, ``PANEL_API_KEY``, ``PANEL_TIMEOUT_SECONDS``, ``PANEL_MAX_RETRIES``).
Every call is ``<METHOD> <url>/api/<path>`` with ``Authorization: Bearer <key>`` and a JSON
body; the panel answers ``{"response": ...}`` and the client returns what is inside, as the
panel spells it (camelCase keys). Failures are typed:

- :class:`PanelNotConfigured` — no URL or no key (the endpoints answer 503);
- :class:`PanelUnavailable` — no connection, no answer in time, a 5xx, or an answer that is
  not the panel's JSON (502);
- :class:`PanelNotFound` — 404 for the thing asked about;
- :class:`PanelError` — the base of all of them, and every other refusal (400, 401, 409 ...);
  it is a :class:`subsvc.panel.PanelError`, the error of the port other plugins use.

Idempotent calls (GET, PUT, PATCH, DELETE and the POSTs marked so, e.g. enabling a node) are
retried up to ``max_retries`` times after a failed connection, a timeout or a 5xx; a POST
that creates something is sent once.

Objects the panel answers (the keys callers rely on):

- user: ``id`` (numeric), ``uuid``, ``shortUuid``, ``username``, ``status`` (ACTIVE, DISABLED, LIMITED,
  EXPIRED), ``expireAt`` (ISO), ``trafficLimitBytes``, ``trafficLimitStrategy``,
  ``usedTrafficBytes``, ``lifetimeUsedTrafficBytes``, ``telegramId``, ``email``,
  ``description``, ``hwidDeviceLimit``, ``subscriptionUrl``, ``activeInternalSquads``
  (``[{"uuid", "name"}]``), ``externalSquadUuid``, ``trojanPassword``, ``vlessUuid``,
  ``ssPassword``, ``firstConnectedAt``, ``onlineAt``, ``lastConnectedNode``
  (``{"nodeName", "connectedAt"}`` or null), ``createdAt``, ``updatedAt``;
- node: ``uuid``, ``name``, ``address``, ``port``, ``countryCode``, ``isConnected``,
  ``isDisabled``, ``isNodeOnline``, ``isXrayRunning``, ``usersOnline``,
  ``trafficUsedBytes``, ``trafficLimitBytes``, ``lastStatusChange``, ``lastStatusMessage``,
  ``xrayUptime``, ``isTrafficTrackingActive``, ``trafficResetDay``, ``notifyPercent``,
  ``consumptionMultiplier``, ``createdAt``, ``updatedAt``, ``providerUuid``, ``provider``
  (``{"uuid", "name", "faviconLink", ...}`` or null), ``activePluginUuid``, ``ips``
  (``[{"ip", "status"}]``), ``versions`` (``{"xray", "node"}``), ``system`` (``{"info":
  {"cpus", "cpuModel", "memoryTotal", ...}, "stats": {...}}``; older panels: ``cpuCount``,
  ``cpuModel``, ``totalRam``);
- internal squad: ``uuid``, ``name``, ``info`` (``{"membersCount", "inboundsCount"}``),
  ``inbounds`` (inbound objects);
- inbound: ``uuid``, ``profileUuid``, ``tag``, ``type``, ``network``, ``security``, ``port``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx2

from subsvc import panel as port

log = logging.getLogger("subsvc.panel")

IDEMPOTENT_METHODS = frozenset({"GET", "PUT", "PATCH", "DELETE", "HEAD"})
NODE_ACTIONS = ("enable", "disable", "restart")
USER_PAGE_MAX = 1000


# --- errors --------------------------------------------------------------------------------------


class PanelError(port.PanelError):
    """The panel refused a call or could not answer it; ``status`` is its HTTP status (if any)."""

    def __init__(self, message: str, *, status: int | None = None, method: str = "", path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.method = method
        self.path = path


class PanelNotConfigured(PanelError):
    """``PANEL_API_URL`` or ``PANEL_API_KEY`` is not set."""


class PanelUnavailable(PanelError):
    """No connection, no answer in time, a 5xx, or an answer that is not the panel's JSON."""


class PanelNotFound(PanelError):
    """The panel does not know the thing asked about (404)."""


# --- the client ----------------------------------------------------------------------------------


class PanelClient:
    """The panel's REST API (one ``httpx2.AsyncClient``, opened on first use)."""

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        *,
        timeout: float = 15.0,
        max_retries: int = 2,
        retry_delay: float = 0.2,
    ) -> None:
        self.base_url = (base_url or "").rstrip("/")
        self.api_key = api_key or ""
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_delay = retry_delay
        self._http: httpx2.AsyncClient | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> PanelClient:
        """Built from the plugin's settings (``PANEL_*``)."""
        return cls(
            settings.PANEL_API_URL,
            settings.PANEL_API_KEY,
            timeout=settings.PANEL_TIMEOUT_SECONDS,
            max_retries=settings.PANEL_MAX_RETRIES,
        )

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.api_key)

    @property
    def configuration_error(self) -> str | None:
        """Why the client is not configured, or ``None``."""
        if not self.base_url:
            return "PANEL_API_URL is not configured"
        if not self.api_key:
            return "PANEL_API_KEY is not configured"
        return None

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    # --- system ----------------------------------------------------------------------------------

    async def system_stats(self) -> dict[str, Any]:
        """``GET /api/system/stats``: ``cpu {cores, physicalCores}``, ``memory {total, free,
        used, active, available}``, ``uptime`` (s), ``users {statusCounts {STATUS: n},
        totalUsers}``, ``onlineStats {onlineNow, lastDay, lastWeek, neverOnline}``,
        ``nodes {totalOnline, totalBytesLifetime}``."""
        return await self._object("GET", "/system/stats")

    async def bandwidth_stats(self) -> dict[str, Any]:
        """``GET /api/system/stats/bandwidth``: ``bandwidthLastTwoDays``,
        ``bandwidthLastSevenDays``, ``bandwidthLast30Days``, ``bandwidthCalendarMonth``,
        ``bandwidthCurrentYear``, each ``{current, previous, difference}`` as human strings
        (``"1.5 GiB"``; see :func:`parse_bytes`)."""
        return await self._object("GET", "/system/stats/bandwidth")

    async def system_health(self) -> list[dict[str, Any]]:
        """``GET /api/system/health``: the panel's processes, ``runtimeMetrics [{rss, heapUsed,
        heapTotal, eventLoopDelayMs, eventLoopP99Ms, uptime, instanceId, ...}]``."""
        found = await self._object("GET", "/system/health")
        return _list(found.get("runtimeMetrics"))

    async def system_recap(self) -> dict[str, Any]:
        """``GET /api/system/stats/recap``: ``version``, ``initDate``, ``total {users, nodes,
        traffic, nodesRam, nodesCpuCores, distinctCountries}``, ``thisMonth {users, traffic}``
        (amounts in bytes, numbers or strings)."""
        return await self._object("GET", "/system/stats/recap")

    async def devices_stats(self) -> dict[str, Any]:
        """``GET /api/hwid/devices/stats``: ``byPlatform [{platform, count}]``, ``byApp [{app,
        count}]``, ``topUsers [{username, devicesCount}]``, ``stats {totalUniqueDevices,
        totalHwidDevices, averageHwidDevicesPerUser}``."""
        return await self._object("GET", "/hwid/devices/stats")

    async def subscription_request_stats(self) -> dict[str, Any]:
        """``GET /api/subscription-request-history/stats``: ``byParsedApp [{app, count}]``
        (subscription-link requests by client app)."""
        return await self._object("GET", "/subscription-request-history/stats")

    async def start_geocheck(self, node_uuid: str, ip: str | None, interface: str | None) -> str:
        """``POST /api/nodes/{uuid}/actions/geocheck`` (``ip``, ``interface`` when given): the
        panel queues the check on the node; its ``jobId``."""
        body = {key: value for key, value in (("ip", ip), ("interface", interface)) if value}
        found = await self._object(
            "POST", f"/nodes/{_segment(node_uuid)}/actions/geocheck", json=body, idempotent=False
        )
        return str(found.get("jobId") or "")

    async def geocheck_job(self, job_id: str) -> dict[str, Any]:
        """``GET /api/nodes/actions/geocheck/{jobId}``: ``isCompleted``, ``isFailed``, ``result
        {success, nodeUuid, image {format, mediaType, encoding, data}, rawReport, message}``;
        :class:`PanelNotFound` for an unknown job."""
        return await self._object("GET", f"/nodes/actions/geocheck/{_segment(job_id)}")

    async def nodes_weekly_stats(self) -> list[dict[str, Any]]:
        """``GET /api/system/stats/nodes``: the last seven days per node,
        ``[{nodeName, date, totalBytes}]``."""
        found = await self._object("GET", "/system/stats/nodes")
        return _list(found.get("lastSevenDays"))

    # --- nodes -----------------------------------------------------------------------------------

    async def nodes(self) -> list[dict[str, Any]]:
        """``GET /api/nodes``: every node."""
        return _list(await self.request("GET", "/nodes"))

    async def node(self, node_uuid: str) -> dict[str, Any]:
        """``GET /api/nodes/{uuid}``; :class:`PanelNotFound` for an unknown node."""
        return await self._object("GET", f"/nodes/{_segment(node_uuid)}")

    async def node_action(self, node_uuid: str, action: str) -> dict[str, Any]:
        """``POST /api/nodes/{uuid}/actions/{enable|disable|restart}``; the node after it."""
        if action not in NODE_ACTIONS:
            raise ValueError(f"node action must be one of {', '.join(NODE_ACTIONS)}")
        return await self._object(
            "POST", f"/nodes/{_segment(node_uuid)}/actions/{action}", idempotent=action != "restart"
        )

    async def restart_all_nodes(self, force: bool = False) -> bool:
        """``POST /api/nodes/actions/restart-all`` (``forceRestart``); whether the panel accepted it."""
        found = await self._object("POST", "/nodes/actions/restart-all", json={"forceRestart": force})
        return bool(found.get("eventSent", True))

    async def nodes_realtime_usage(self) -> list[dict[str, Any]]:
        """``GET /api/nodes/usage/realtime``: per node ``{nodeUuid, nodeName, countryCode,
        downloadBytes, uploadBytes, totalBytes, downloadSpeedBps, uploadSpeedBps,
        totalSpeedBps}``."""
        return _list(await self.request("GET", "/nodes/usage/realtime"))

    async def nodes_usage(self, start: datetime, end: datetime) -> list[dict[str, Any]]:
        """``GET /api/nodes/usage/range``: per node and day ``{nodeUuid, nodeName,
        countryCode, date, totalBytes, downloadBytes, uploadBytes}``."""
        params = {"start": start.isoformat(), "end": end.isoformat()}
        return _list(await self.request("GET", "/nodes/usage/range", params=params))

    async def node_users_usage(self, node_uuid: str, start: datetime, end: datetime) -> list[dict[str, Any]]:
        """``GET /api/nodes/usage/{uuid}/users/range``: per user and day on one node
        ``{userUuid, username, nodeUuid, date, total}``."""
        params = {"start": start.isoformat(), "end": end.isoformat()}
        path = f"/nodes/usage/{_segment(node_uuid)}/users/range"
        return _list(await self.request("GET", path, params=params))

    # --- squads and inbounds ---------------------------------------------------------------------

    async def squads(self) -> list[dict[str, Any]]:
        """``GET /api/internal-squads``: every internal squad."""
        found = await self._object("GET", "/internal-squads")
        return _list(found.get("internalSquads"))

    async def squad(self, squad_uuid: str) -> dict[str, Any]:
        """``GET /api/internal-squads/{uuid}``; :class:`PanelNotFound` for an unknown squad."""
        return await self._object("GET", f"/internal-squads/{_segment(squad_uuid)}")

    async def create_squad(self, name: str, inbound_uuids: Sequence[str] = ()) -> dict[str, Any]:
        """``POST /api/internal-squads`` (sent once); the new squad."""
        return await self._object(
            "POST", "/internal-squads", json={"name": name, "inbounds": list(inbound_uuids)}
        )

    async def update_squad(
        self, squad_uuid: str, *, name: str | None = None, inbound_uuids: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """``PATCH /api/internal-squads``: rename and/or set the inbounds; the squad after it."""
        body: dict[str, Any] = {"uuid": squad_uuid}
        if name is not None:
            body["name"] = name
        if inbound_uuids is not None:
            body["inbounds"] = list(inbound_uuids)
        return await self._object("PATCH", "/internal-squads", json=body)

    async def delete_squad(self, squad_uuid: str) -> bool:
        """``DELETE /api/internal-squads/{uuid}``; whether it was deleted."""
        found = await self._object("DELETE", f"/internal-squads/{_segment(squad_uuid)}")
        return bool(found.get("isDeleted", True))

    async def add_all_users_to_squad(self, squad_uuid: str) -> bool:
        """``POST /api/internal-squads/{uuid}/bulk-actions/add-users``: every user joins."""
        path = f"/internal-squads/{_segment(squad_uuid)}/bulk-actions/add-users"
        found = await self._object("POST", path, idempotent=True)
        return bool(found.get("eventSent", True))

    async def remove_all_users_from_squad(self, squad_uuid: str) -> bool:
        """``DELETE /api/internal-squads/{uuid}/bulk-actions/remove-users``: every user leaves."""
        path = f"/internal-squads/{_segment(squad_uuid)}/bulk-actions/remove-users"
        found = await self._object("DELETE", path)
        return bool(found.get("eventSent", True))

    async def external_squads(self) -> list[dict[str, Any]]:
        """``GET /api/external-squads``: ``[{uuid, name, info {membersCount}}]``."""
        found = await self._object("GET", "/external-squads")
        return _list(found.get("externalSquads"))

    async def inbounds(self) -> list[dict[str, Any]]:
        """``GET /api/config-profiles/inbounds``: every inbound of every config profile."""
        found = await self._object("GET", "/config-profiles/inbounds")
        return _list(found.get("inbounds"))

    # --- users -----------------------------------------------------------------------------------

    async def create_user(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/users`` (sent once, never retried); the new user. ``fields`` as the
        panel spells them: ``username`` (required, unique), ``expireAt`` (required, ISO),
        ``status``, ``trafficLimitBytes``, ``trafficLimitStrategy`` (NO_RESET, DAY, WEEK,
        MONTH), ``telegramId``, ``email``, ``description``, ``hwidDeviceLimit``,
        ``activeInternalSquads`` (squad uuids), ``externalSquadUuid``."""
        return await self._object("POST", "/users", json=_jsonable(fields))

    async def user(self, user_uuid: str) -> dict[str, Any]:
        """``GET /api/users/{uuid}``; :class:`PanelNotFound` for an unknown user."""
        return await self._object("GET", f"/users/{_segment(user_uuid)}")

    async def users_by_messenger_id(self, messenger_id: int) -> list[dict[str, Any]]:
        """``GET /api/users/by-telegram-id/{id}``: the users carrying this messenger id
        (none: an empty list, not an error)."""
        try:
            return _list(await self.request("GET", f"/users/by-telegram-id/{int(messenger_id)}"))
        except PanelNotFound:
            return []

    async def users_by_email(self, email: str) -> list[dict[str, Any]]:
        """``GET /api/users/by-email/{email}`` (none: an empty list)."""
        try:
            return _list(await self.request("GET", f"/users/by-email/{_segment(email)}"))
        except PanelNotFound:
            return []

    async def users_page(self, start: int = 0, size: int = 500) -> tuple[list[dict[str, Any]], int]:
        """``GET /api/users?start=&size=``: one page of users (oldest first) and the total."""
        size = max(1, min(size, USER_PAGE_MAX))
        found = await self._object("GET", "/users", params={"start": max(0, start), "size": size})
        return _list(found.get("users")), _int(found.get("total"))

    async def all_users(self, page_size: int = 500) -> list[dict[str, Any]]:
        """Every user, page by page."""
        users: list[dict[str, Any]] = []
        while True:
            page, total = await self.users_page(len(users), page_size)
            users.extend(page)
            if not page or len(users) >= total:
                return users

    async def update_user(self, user_uuid: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """``PATCH /api/users`` with ``uuid`` and the fields to set (names as in
        :meth:`create_user`, plus ``status``); the user after it."""
        return await self._object("PATCH", "/users", json={**_jsonable(fields), "uuid": user_uuid})

    async def enable_user(self, user_uuid: str) -> dict[str, Any]:
        """``POST /api/users/{uuid}/actions/enable`` (idempotent); the user after it."""
        return await self._object("POST", f"/users/{_segment(user_uuid)}/actions/enable", idempotent=True)

    async def disable_user(self, user_uuid: str) -> dict[str, Any]:
        """``POST /api/users/{uuid}/actions/disable`` (idempotent); the user after it."""
        return await self._object("POST", f"/users/{_segment(user_uuid)}/actions/disable", idempotent=True)

    async def reset_user_traffic(self, user_uuid: str) -> dict[str, Any]:
        """``POST /api/users/{uuid}/actions/reset-traffic`` (idempotent: the used traffic
        becomes 0, a LIMITED user ACTIVE); the user after it."""
        path = f"/users/{_segment(user_uuid)}/actions/reset-traffic"
        return await self._object("POST", path, idempotent=True)

    async def revoke_user_subscription(self, user_uuid: str) -> dict[str, Any]:
        """``POST /api/users/{uuid}/actions/revoke`` (sent once: each call revokes again): a
        new short uuid, subscription URL and credentials; the user after it."""
        return await self._object("POST", f"/users/{_segment(user_uuid)}/actions/revoke", json={})

    async def delete_user(self, user_uuid: str) -> bool:
        """``DELETE /api/users/{uuid}``; ``False`` when the panel did not know the user."""
        try:
            found = await self._object("DELETE", f"/users/{_segment(user_uuid)}")
        except PanelNotFound:
            return False
        return bool(found.get("isDeleted", True))

    async def user_usage(self, user_uuid: str, start: datetime, end: datetime) -> list[dict[str, Any]]:
        """``GET /api/users/stats/usage/{uuid}/range``: the user's traffic per node and day
        ``[{userUuid, nodeUuid, nodeName, countryCode, date, total}]``."""
        params = {"start": start.isoformat(), "end": end.isoformat()}
        path = f"/users/stats/usage/{_segment(user_uuid)}/range"
        return _list(await self.request("GET", path, params=params))

    async def user_subscription_requests(self, user_uuid: str) -> list[dict[str, Any]]:
        """``GET /api/users/{uuid}/subscription-request-history``: the panel's recent log of
        the user's subscription-link requests (it keeps the last 24; no paging), ``[{id,
        userUuid (newer panels: userId), requestAt, requestIp, userAgent}]``;
        :class:`PanelNotFound` for an unknown user."""
        found = await self._object("GET", f"/users/{_segment(user_uuid)}/subscription-request-history")
        return _list(found.get("records"))

    async def user_devices(self, user_uuid: str) -> list[dict[str, Any]]:
        """``GET /api/hwid/devices/{uuid}``: ``[{hwid, platform, osVersion, deviceModel,
        userAgent, createdAt}]``."""
        found = await self._object("GET", f"/hwid/devices/{_segment(user_uuid)}")
        return _list(found.get("devices"))

    async def all_devices(self, page_size: int = 500) -> list[dict[str, Any]]:
        """``GET /api/hwid/devices?start=&size=``, page by page: every device of every user
        (``userUuid`` says whose)."""
        devices: list[dict[str, Any]] = []
        while True:
            params = {"start": len(devices), "size": max(1, min(page_size, USER_PAGE_MAX))}
            found = await self._object("GET", "/hwid/devices", params=params)
            page = _list(found.get("devices"))
            devices.extend(page)
            if not page or len(devices) >= _int(found.get("total")):
                return devices

    async def delete_user_device(self, user_uuid: str, hwid: str) -> bool:
        """``POST /api/hwid/devices/delete``; whether the device was known."""
        try:
            await self.request(
                "POST", "/hwid/devices/delete", json={"userUuid": user_uuid, "hwid": hwid}, idempotent=True
            )
        except PanelNotFound:
            return False
        return True

    async def delete_all_user_devices(self, user_uuid: str) -> list[dict[str, Any]]:
        """``POST /api/hwid/devices/delete-all`` (idempotent): the user's devices are
        forgotten; the devices left (none)."""
        found = await self._object(
            "POST", "/hwid/devices/delete-all", json={"userUuid": user_uuid}, idempotent=True
        )
        return _list(found.get("devices"))

    # --- the transport ---------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        idempotent: bool | None = None,
    ) -> Any:
        """``<method> <url>/api<path>``; the answer's ``response``. Retries (idempotent calls
        only) after a failed connection, a timeout or a 5xx. Raises a :class:`PanelError`."""
        if not self.configured:
            raise PanelNotConfigured(
                self.configuration_error or port.NOT_CONFIGURED, method=method, path=path
            )
        retry = idempotent if idempotent is not None else method.upper() in IDEMPOTENT_METHODS
        http = self._client()
        attempt = 0
        while True:
            try:
                return await self._send(http, method.upper(), path, params, json)
            except PanelUnavailable as exc:
                if not retry or attempt >= self.max_retries or (exc.status is not None and exc.status < 500):
                    raise
                log.warning("panel: %s %s failed (%s), retrying", method, path, exc)
                await asyncio.sleep(self.retry_delay * 2**attempt)
            attempt += 1

    async def _send(
        self, http: httpx2.AsyncClient, method: str, path: str, params: Mapping[str, Any] | None, body: Any
    ) -> Any:
        url = f"{self.base_url}/api{path}"
        try:
            response = await http.request(method, url, params=dict(params) if params else None, json=body)
        except httpx2.InvalidURL as exc:
            raise _unusable_url(self.base_url, method, path, exc) from None
        except httpx2.TimeoutException:
            raise PanelUnavailable(f"no answer within {self.timeout:g}s", method=method, path=path) from None
        except httpx2.TransportError as exc:
            raise PanelUnavailable(
                f"cannot connect: {type(exc).__name__}", method=method, path=path
            ) from None
        status = response.status_code
        try:
            data = response.json()
        except ValueError:
            data = None
        if status >= 500:
            raise PanelUnavailable(
                f"HTTP {status}{_message_of(data)}", status=status, method=method, path=path
            )
        if status == 404:
            raise PanelNotFound(f"not found{_message_of(data)}", status=status, method=method, path=path)
        if status >= 400:
            raise PanelError(f"HTTP {status}{_message_of(data)}", status=status, method=method, path=path)
        if not isinstance(data, dict) or "response" not in data:
            raise PanelUnavailable(
                f"HTTP {status} without a panel answer", status=status, method=method, path=path
            )
        return data["response"]

    async def _object(self, method: str, path: str, **options: Any) -> dict[str, Any]:
        found = await self.request(method, path, **options)
        if not isinstance(found, dict):
            raise PanelUnavailable(
                "the panel answered something that is not an object", method=method, path=path
            )
        return found

    def _client(self) -> httpx2.AsyncClient:
        if self._http is None:
            self._http = httpx2.AsyncClient(
                timeout=self.timeout,
                headers={"Authorization": f"Bearer {self.api_key}", "Accept": "application/json"},
                limits=httpx2.Limits(max_connections=50, max_keepalive_connections=10),
            )
        return self._http


# --- helpers -------------------------------------------------------------------------------------

_UNITS = {"B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4, "PB": 1000**5,
          "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3, "TIB": 1024**4, "PIB": 1024**5}  # fmt: skip


def parse_bytes(value: Any) -> int:
    """Bytes of a panel figure: a number, or a human string such as ``"1.5 GiB"`` /
    ``"-200 MB"``; anything else is 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        return int(value)
    if not isinstance(value, str):
        return 0
    text = value.strip().replace(",", ".")
    number, _, unit = text.partition(" ")
    if not unit:
        digits = number.rstrip("BbKkMmGgTtPpIi")
        number, unit = digits, number[len(digits) :]
    try:
        amount = float(number)
    except ValueError:
        return 0
    return int(amount * _UNITS.get(unit.strip().upper() or "B", 1))


def _unusable_url(base_url: str, method: str, path: str, exc: httpx2.InvalidURL) -> PanelError:
    """No URL can be made for the call. With a valid ``PANEL_API_URL`` what made it so is an
    identifier in the path (escaped, so only by its length): the panel has nothing of that name."""
    shown = path if len(path) <= 200 else f"{path[:200]}..."
    try:
        httpx2.URL(base_url)
    except httpx2.InvalidURL:
        return PanelUnavailable(f"PANEL_API_URL is not a valid URL ({exc})", method=method, path=shown)
    return PanelNotFound(f"not found: no URL can name it ({exc})", method=method, path=shown)


def _segment(value: str) -> str:
    """A path segment: characters that would change the path are escaped."""
    return quote(str(value), safe="")


def _list(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        for key in ("items", "users", "nodes"):
            if isinstance(value.get(key), list):
                value = value[key]
                break
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _message_of(data: Any) -> str:
    if isinstance(data, dict):
        message = data.get("message") or data.get("error")
        if isinstance(message, str) and message:
            return f": {message[:200]}"
    return ""


def _jsonable(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value.isoformat() if isinstance(value, datetime) else value for key, value in fields.items()}
