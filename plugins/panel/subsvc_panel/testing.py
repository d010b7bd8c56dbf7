"""A loopback fake of the VPN panel's REST API, for tests (and local trials).

It serves the calls :class:`subsvc_panel.client.PanelClient` makes, the way the panel does:
the same paths under ``/api``, ``Authorization: Bearer <key>`` checked (401 otherwise), every
answer ``{"response": ...}``, errors ``{"statusCode", "message", "errorCode"}``. State is in
memory: users (indexed by uuid, by messenger id and by username, so 10,000 users cost
nothing), nodes, internal and external squads, inbounds, devices and traffic figures.

Tests choose its behaviour:

- ``await fake.down()`` / ``await fake.up()``: stop serving (connection refused), serve again
  on the same port;
- ``fake.fail_with(500, times=None)``: answer that status (``times`` calls, or until
  ``fake.fail_with(None)``); ``fake.garbage = True``: answer HTML instead of JSON;
- ``fake.add_node(...)``, ``fake.add_squad(...)``, ``fake.add_inbound(...)``,
  ``fake.add_user(...)``, ``fake.add_users(n)``: seed state; ``fake.usage`` per-user
  traffic rows.

Every request is recorded in ``fake.requests`` as ``(method, path)``, whatever it answered.
The ``fake_panel`` fixture serves one on uvicorn on a free loopback port; ``fake.env()``
are the environment variables that point the plugin at it.
"""

from __future__ import annotations

import json
import uuid as uuid_lib
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from subsvc.testing_server import LoopbackServer

API_KEY = "fake-panel-api-key-0123456789"
VERSION = "2.2.0"
INIT_DATE = "2025-01-15T00:00:00.000Z"
RUNTIME = {
    "rss": 200 * 1024**2,
    "heapUsed": 80 * 1024**2,
    "heapTotal": 120 * 1024**2,
    "eventLoopDelayMs": 1.5,
    "eventLoopP99Ms": 12.0,
    "uptime": 7200,
    "instanceId": "0",
}
GEOCHECK_IMAGE = {"format": "png", "mediaType": "image/png", "encoding": "base64", "data": "iVBORw0KGgo="}
USER_STATUSES = ("ACTIVE", "DISABLED", "LIMITED", "EXPIRED")
#: How many of a user's subscription-link requests the panel answers (its "recent 24").
REQUEST_HISTORY_KEPT = 24


class FakePanelError(Exception):
    def __init__(self, status: int, message: str, code: str = "A000") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


Found = TypeVar("Found")


def _found(found: Found | None, message: str, code: str) -> Found:
    """``found``, or the panel's 404 with ``message`` and ``code`` when it is None or empty."""
    if not found:
        raise FakePanelError(404, message, code)
    return found


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def new_uuid() -> str:
    return str(uuid_lib.uuid4())


@dataclass
class FakePanel:
    """The fake's state and behaviour; :meth:`app` is its ASGI application."""

    api_key: str = API_KEY
    url: str = ""
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_messenger_id: dict[int, list[str]] = field(default_factory=dict)
    by_username: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    squads: dict[str, dict[str, Any]] = field(default_factory=dict)
    external_squads: dict[str, dict[str, Any]] = field(default_factory=dict)
    inbounds: dict[str, dict[str, Any]] = field(default_factory=dict)
    devices: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # per user uuid: [{"nodeUuid", "date" (YYYY-MM-DD), "total"}]
    usage: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    realtime: list[dict[str, Any]] = field(default_factory=list)
    # the panel's own processes, as /system/health reports them
    runtime: list[dict[str, Any]] = field(default_factory=lambda: [dict(RUNTIME)])
    # subscription-link requests: [{"id", "userUuid", "requestAt", "requestIp", "userAgent"}]
    subscription_requests: list[dict[str, Any]] = field(default_factory=list)
    # geo-check jobs by id: {"nodeUuid", "polls", "result" (set once done), "failed"}
    geochecks: dict[str, dict[str, Any]] = field(default_factory=dict)
    geocheck_polls: int = 1
    # forceRestart of each restart-all
    restarts: list[bool] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    garbage: bool = False
    next_user_id: int = 0
    failing: dict[str, Any] = field(default_factory=dict)
    _server: LoopbackServer | None = None

    # --- behaviour ---------------------------------------------------------------------------

    def fail_with(self, status: int | None, times: int | None = None, path: str | None = None) -> None:
        """Answer ``status`` (e.g. 500) to the next ``times`` requests (all while ``None``) whose
        path starts with ``path`` (any when ``None``); ``fail_with(None)`` stops failing."""
        self.failing = {} if status is None else {"status": status, "times": times, "path": path}

    def env(self) -> dict[str, str]:
        """Environment variables pointing the panel plugin at this fake."""
        return {"PANEL_API_URL": self.url, "PANEL_API_KEY": self.api_key, "PANEL_MAX_RETRIES": "2"}

    def count(self, method: str, path_start: str = "") -> int:
        """How many requests of ``method`` to paths starting with ``path_start`` arrived."""
        return sum(1 for m, p in self.requests if m == method and p.startswith(path_start))

    # --- state -------------------------------------------------------------------------------

    def add_node(self, name: str, **fields: Any) -> dict[str, Any]:
        """A node as the panel answers it: the host (``system``: ``info`` and ``stats``) and the
        software (``versions``) the node reports, its ``provider``, ``ips`` and plugin."""
        node = {
            "uuid": fields.pop("uuid", new_uuid()),
            "name": name,
            "address": fields.pop("address", f"{name.lower()}.example.net"),
            "port": 2222,
            "countryCode": fields.pop("countryCode", "DE"),
            "isConnected": True,
            "isConnecting": False,
            "isDisabled": False,
            "isNodeOnline": True,
            "isXrayRunning": True,
            "usersOnline": 0,
            "trafficUsedBytes": 0,
            "trafficLimitBytes": None,
            "lastStatusChange": _now(),
            "lastStatusMessage": None,
            "xrayUptime": 3600,
            "isTrafficTrackingActive": False,
            "trafficResetDay": None,
            "notifyPercent": None,
            "consumptionMultiplier": 1.0,
            "createdAt": _now(),
            "updatedAt": _now(),
            "providerUuid": None,
            "provider": None,
            "activePluginUuid": None,
            "ips": [],
            "versions": {"xray": "25.1.1", "node": "2.2.0"},
            "system": {
                "info": {
                    "arch": "x64",
                    "cpus": 2,
                    "cpuModel": "Fake CPU",
                    "memoryTotal": 4 * 1024**3,
                    "hostname": name.lower(),
                    "platform": "linux",
                    "release": "6.8.0",
                    "type": "Linux",
                    "version": "#1 SMP",
                    "networkInterfaces": ["eth0"],
                },
                "stats": {
                    "memoryFree": 1024**3,
                    "memoryUsed": 3 * 1024**3,
                    "uptime": 86400,
                    "loadAvg": [0.1],
                },
            },
            **fields,
        }
        self.nodes[node["uuid"]] = node
        return node

    def add_inbound(self, tag: str, **fields: Any) -> dict[str, Any]:
        inbound = {
            "uuid": fields.pop("uuid", new_uuid()),
            "profileUuid": fields.pop("profileUuid", "profile-1"),
            "tag": tag,
            "type": "vless",
            "network": "tcp",
            "security": "reality",
            "port": 443,
            **fields,
        }
        self.inbounds[inbound["uuid"]] = inbound
        return inbound

    def add_squad(self, name: str, inbound_uuids: Iterable[str] = (), **fields: Any) -> dict[str, Any]:
        squad = {
            "uuid": fields.pop("uuid", new_uuid()),
            "name": name,
            "inbounds": list(inbound_uuids),
            **fields,
        }
        self.squads[squad["uuid"]] = squad
        return self._squad_view(squad)

    def add_external_squad(self, name: str) -> dict[str, Any]:
        squad = {"uuid": new_uuid(), "name": name}
        self.external_squads[squad["uuid"]] = squad
        return squad

    def add_user(self, username: str, **fields: Any) -> dict[str, Any]:
        """A user as the panel keeps it (fields in the panel's spelling override defaults)."""
        if username in self.by_username:
            raise FakePanelError(400, "User username already exists", "A019")
        squads = fields.pop("activeInternalSquads", [])
        self.next_user_id += 1
        user = {
            "id": self.next_user_id,
            "uuid": fields.pop("uuid", new_uuid()),
            "shortUuid": fields.pop("shortUuid", uuid_lib.uuid4().hex[:16]),
            "username": username,
            "status": "ACTIVE",
            "usedTrafficBytes": 0,
            "lifetimeUsedTrafficBytes": 0,
            "trafficLimitBytes": 0,
            "trafficLimitStrategy": "NO_RESET",
            "expireAt": (datetime.now(UTC) + timedelta(days=30)).isoformat(),
            "telegramId": None,
            "email": None,
            "description": None,
            "hwidDeviceLimit": None,
            "externalSquadUuid": None,
            "trojanPassword": uuid_lib.uuid4().hex,
            "vlessUuid": new_uuid(),
            "ssPassword": uuid_lib.uuid4().hex,
            "firstConnectedAt": None,
            "onlineAt": None,
            "lastConnectedNodeUuid": None,
            "createdAt": _now(),
            "updatedAt": _now(),
            **fields,
        }
        user["activeInternalSquads"] = [self._squad_ref(s) for s in squads]
        _links(user)
        self.users[user["uuid"]] = user
        self.by_username[username] = user["uuid"]
        if user["telegramId"] is not None:
            self.by_messenger_id.setdefault(int(user["telegramId"]), []).append(user["uuid"])
        return user

    def add_users(
        self, count: int, *, first_messenger_id: int = 500_000_000, **fields: Any
    ) -> list[dict[str, Any]]:
        """``count`` users ``user_<messenger id>`` with consecutive messenger ids."""
        return [
            self.add_user(f"user_{first_messenger_id + n}", telegramId=first_messenger_id + n, **fields)
            for n in range(count)
        ]

    def add_device(self, user_uuid: str, hwid: str, **fields: Any) -> dict[str, Any]:
        device = {
            "hwid": hwid,
            "userUuid": user_uuid,
            "platform": fields.pop("platform", "Android"),
            "osVersion": "14",
            "deviceModel": fields.pop("deviceModel", "Pixel"),
            "userAgent": "Happ/1.0",
            "createdAt": _now(),
            "updatedAt": _now(),
            **fields,
        }
        self.devices.setdefault(user_uuid, []).append(device)
        return device

    def add_subscription_request(
        self,
        user_uuid: str,
        user_agent: str | None,
        *,
        request_ip: str | None = None,
        request_at: datetime | None = None,
    ) -> dict[str, Any]:
        """A client app fetched the user's subscription link (now, unless ``request_at``)."""
        moment = (request_at or datetime.now(UTC)).astimezone(UTC).isoformat().replace("+00:00", "Z")
        record = {
            "id": len(self.subscription_requests) + 1,
            "userUuid": user_uuid,
            "requestAt": moment,
            "requestIp": request_ip,
            "userAgent": user_agent,
        }
        self.subscription_requests.append(record)
        return record

    def add_usage(self, user_uuid: str, node_uuid: str, day: str, total: int) -> None:
        """``total`` bytes of the user on the node on ``day`` (YYYY-MM-DD)."""
        self.usage.setdefault(user_uuid, []).append({"nodeUuid": node_uuid, "date": day, "total": total})

    def users_of_messenger_id(self, messenger_id: int) -> list[dict[str, Any]]:
        return [self.users[u] for u in self.by_messenger_id.get(messenger_id, []) if u in self.users]

    # --- serving -----------------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/api/{path:path}", self._endpoint, methods=["GET", "POST", "PATCH", "PUT", "DELETE"])
            ]
        )

    async def up(self) -> None:
        """Serve on the same port as before (a free loopback port the first time)."""
        if self._server is None:
            self._server = LoopbackServer(self.app())
        await self._server.start()
        self.url = self._server.url

    async def down(self) -> None:
        """Stop serving: connections are refused until :meth:`up`."""
        if self._server is not None:
            await self._server.stop()

    async def _endpoint(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        method = request.method
        self.requests.append((method, path))
        if request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(FakePanelError(401, "Unauthorized"))
        if self._should_fail(path):
            return _error(FakePanelError(self.failing["status"], "Internal server error"))
        if self.garbage:
            return Response("<html>502 Bad Gateway</html>", status_code=200, media_type="text/html")
        body: Any = None
        if method in ("POST", "PATCH", "PUT", "DELETE"):
            raw = await request.body()
            if raw:
                try:
                    body = json.loads(raw)
                except ValueError:
                    return _error(FakePanelError(400, "Invalid JSON"))
        try:
            result = self._route(method, path.rstrip("/").split("/")[1:], dict(request.query_params), body)
        except FakePanelError as exc:
            return _error(exc)
        return JSONResponse(
            {"response": result},
            status_code=201
            if method == "POST" and result is not None and path in ("/users", "/internal-squads")
            else 200,
        )

    def _should_fail(self, path: str) -> bool:
        if not self.failing:
            return False
        start = self.failing.get("path")
        if start is not None and not path.startswith(start):
            return False
        times = self.failing.get("times")
        if times is not None:
            if times <= 0:
                self.failing = {}
                return False
            self.failing["times"] = times - 1
        return True

    def _route(self, method: str, parts: list[str], query: Mapping[str, str], body: Any) -> Any:
        match method, parts:
            case "GET", ["system", "stats"]:
                return self._system_stats()
            case "GET", ["system", "stats", "bandwidth"]:
                return self._bandwidth()
            case "GET", ["system", "stats", "nodes"]:
                return {"lastSevenDays": self._weekly()}
            case "GET", ["system", "stats", "recap"]:
                return self._recap()
            case "GET", ["system", "health"]:
                return {"runtimeMetrics": self.runtime}
            case "GET", ["hwid", "devices", "stats"]:
                return self._devices_stats()
            case "GET", ["subscription-request-history", "stats"]:
                return {"byParsedApp": _by_app(r["userAgent"] or "" for r in self.subscription_requests)}
            case "POST", ["nodes", node_uuid, "actions", "geocheck"]:
                job_id = new_uuid()
                self.geochecks[job_id] = {"nodeUuid": self._node(node_uuid)["uuid"], "polls": 0, "body": body}
                return {"jobId": job_id}
            case "GET", ["nodes", "actions", "geocheck", job_id]:
                return self._geocheck(job_id)
            case "GET", ["nodes"]:
                return list(self.nodes.values())
            case "GET", ["nodes", "usage", "realtime"]:
                return self.realtime or self._realtime()
            case "GET", ["nodes", "usage", "range"]:
                return self._nodes_range(query)
            case "GET", ["nodes", "usage", node_uuid, "users", "range"]:
                return self._node_users(self._node(node_uuid)["uuid"], query)
            case "POST", ["nodes", "actions", "restart-all"]:
                self.restarts.append(bool(_dict_of(body).get("forceRestart")))
                return {"eventSent": True}
            case "GET", ["nodes", node_uuid]:
                return self._node(node_uuid)
            case "POST", ["nodes", node_uuid, "actions", action] if action in (
                "enable",
                "disable",
                "restart",
            ):
                node = self._node(node_uuid)
                if action != "restart":
                    node["isDisabled"] = action == "disable"
                    node["isConnected"] = action == "enable"
                return node
            case "GET", ["internal-squads"]:
                squads = [self._squad_view(s) for s in self.squads.values()]
                return {"total": len(squads), "internalSquads": squads}
            case "POST", ["internal-squads"]:
                name = _text(body, "name")
                if any(s["name"] == name for s in self.squads.values()):
                    raise FakePanelError(400, "Internal squad name already exists", "A111")
                return self.add_squad(name, self._inbound_uuids(body))
            case "PATCH", ["internal-squads"]:
                squad = self._squad(_text(body, "uuid"))
                if isinstance(body.get("name"), str):
                    squad["name"] = body["name"]
                if "inbounds" in body:
                    squad["inbounds"] = self._inbound_uuids(body)
                return self._squad_view(squad)
            case "GET", ["internal-squads", squad_uuid]:
                return self._squad_view(self._squad(squad_uuid))
            case "DELETE", ["internal-squads", squad_uuid]:
                self._squad(squad_uuid)
                del self.squads[squad_uuid]
                for user in self.users.values():
                    user["activeInternalSquads"] = [
                        s for s in user["activeInternalSquads"] if s["uuid"] != squad_uuid
                    ]
                return {"isDeleted": True}
            case "POST", ["internal-squads", squad_uuid, "bulk-actions", "add-users"]:
                ref = self._squad_ref(self._squad(squad_uuid)["uuid"])
                for user in self.users.values():
                    if all(s["uuid"] != squad_uuid for s in user["activeInternalSquads"]):
                        user["activeInternalSquads"].append(ref)
                return {"eventSent": True}
            case "DELETE", ["internal-squads", squad_uuid, "bulk-actions", "remove-users"]:
                self._squad(squad_uuid)
                for user in self.users.values():
                    user["activeInternalSquads"] = [
                        s for s in user["activeInternalSquads"] if s["uuid"] != squad_uuid
                    ]
                return {"eventSent": True}
            case "GET", ["external-squads"]:
                squads = [
                    {**s, "info": {"membersCount": self._external_members(s["uuid"])}}
                    for s in self.external_squads.values()
                ]
                return {"total": len(squads), "externalSquads": squads}
            case "GET", ["config-profiles", "inbounds"]:
                return {"total": len(self.inbounds), "inbounds": list(self.inbounds.values())}
            case "GET", ["users"]:
                start, size = _int(query.get("start"), 0), _int(query.get("size"), 25)
                users = list(self.users.values())
                return {"users": users[start : start + size], "total": len(users)}
            case "POST", ["users"]:
                return self._create_user(body)
            case "PATCH", ["users"]:
                return self._update_user(body)
            case "GET", ["users", "by-telegram-id", messenger_id]:
                return _found(self.users_of_messenger_id(_int(messenger_id, -1)), "User not found", "A063")
            case "GET", ["users", "by-email", email]:
                by_email = [u for u in self.users.values() if u.get("email") == email]
                return _found(by_email, "User not found", "A063")
            case "GET", ["users", "stats", "usage", user_uuid, "range"]:
                user = self._user(user_uuid)
                return self._user_range(user["uuid"], query)
            case "GET", ["users", user_uuid, "subscription-request-history"]:
                return self._request_history(self._user(user_uuid)["uuid"])
            case "GET", ["users", user_uuid]:
                return self._user(user_uuid)
            case "DELETE", ["users", user_uuid]:
                user = self._user(user_uuid)
                self._forget(user)
                return {"isDeleted": True}
            case "POST", ["users", user_uuid, "actions", action] if action in ("enable", "disable"):
                user = self._user(user_uuid)
                user["status"] = "ACTIVE" if action == "enable" else "DISABLED"
                user["updatedAt"] = _now()
                return user
            case "POST", ["users", user_uuid, "actions", "reset-traffic"]:
                user = self._user(user_uuid)
                user["usedTrafficBytes"] = 0
                if user["status"] == "LIMITED":
                    user["status"] = "ACTIVE"
                user["updatedAt"] = _now()
                return user
            case "POST", ["users", user_uuid, "actions", "revoke"]:
                return self._revoke(self._user(user_uuid))
            case "GET", ["hwid", "devices"]:
                every = [d for devices in self.devices.values() for d in devices]
                start, size = _int(query.get("start"), 0), _int(query.get("size"), 25)
                return {"total": len(every), "devices": every[start : start + size]}
            case "GET", ["hwid", "devices", user_uuid]:
                devices = self.devices.get(user_uuid, [])
                return {"total": len(devices), "devices": devices}
            case "POST", ["hwid", "devices", "delete-all"]:
                self.devices[self._user(_text(body, "userUuid"))["uuid"]] = []
                return {"total": 0, "devices": []}
            case "POST", ["hwid", "devices", "delete"]:
                user_uuid, hwid = _text(body, "userUuid"), _text(body, "hwid")
                devices = self.devices.get(user_uuid, [])
                if all(d["hwid"] != hwid for d in devices):
                    raise FakePanelError(404, "Device not found", "A101")
                self.devices[user_uuid] = [d for d in devices if d["hwid"] != hwid]
                return {"total": len(self.devices[user_uuid]), "devices": self.devices[user_uuid]}
        raise FakePanelError(404, f"Cannot {method} /api/{'/'.join(parts)}")

    # --- pieces ------------------------------------------------------------------------------

    def _node(self, node_uuid: str) -> dict[str, Any]:
        return _found(self.nodes.get(node_uuid), "Node not found", "A031")

    def _squad(self, squad_uuid: str) -> dict[str, Any]:
        return _found(self.squads.get(squad_uuid), "Internal squad not found", "A104")

    def _squad_ref(self, squad_uuid: str) -> dict[str, Any]:
        squad = self._squad(squad_uuid)
        return {"uuid": squad["uuid"], "name": squad["name"]}

    def _squad_view(self, squad: dict[str, Any]) -> dict[str, Any]:
        members = sum(
            1
            for u in self.users.values()
            if any(s["uuid"] == squad["uuid"] for s in u["activeInternalSquads"])
        )
        inbounds = [self.inbounds[i] for i in squad["inbounds"] if i in self.inbounds]
        return {
            "uuid": squad["uuid"],
            "name": squad["name"],
            "info": {"membersCount": members, "inboundsCount": len(inbounds)},
            "inbounds": inbounds,
        }

    def _external_members(self, squad_uuid: str) -> int:
        return sum(1 for u in self.users.values() if u.get("externalSquadUuid") == squad_uuid)

    def _inbound_uuids(self, body: Any) -> list[str]:
        found = body.get("inbounds", []) if isinstance(body, dict) else []
        if not isinstance(found, list) or not all(isinstance(i, str) for i in found):
            raise FakePanelError(400, "inbounds must be a list of uuids")
        return found

    def _user(self, user_uuid: str) -> dict[str, Any]:
        return _found(self.users.get(user_uuid), "User not found", "A063")

    def _request_history(self, user_uuid: str) -> dict[str, Any]:
        """The user's latest :data:`REQUEST_HISTORY_KEPT` requests, newest first (no paging)."""
        mine = [r for r in self.subscription_requests if r["userUuid"] == user_uuid]
        mine.sort(key=lambda r: (r["requestAt"], r["id"]), reverse=True)
        records = mine[:REQUEST_HISTORY_KEPT]
        return {"total": len(records), "records": records}

    def _forget(self, user: dict[str, Any]) -> None:
        del self.users[user["uuid"]]
        self.by_username.pop(user["username"], None)
        if user.get("telegramId") is not None:
            ids = self.by_messenger_id.get(int(user["telegramId"]), [])
            if user["uuid"] in ids:
                ids.remove(user["uuid"])

    def _revoke(self, user: dict[str, Any]) -> dict[str, Any]:
        """A new short uuid, subscription URL and credentials (the old link stops working)."""
        user["shortUuid"] = uuid_lib.uuid4().hex[:16]
        _links(user)
        user["vlessUuid"], user["trojanPassword"], user["ssPassword"] = (
            new_uuid(),
            uuid_lib.uuid4().hex,
            uuid_lib.uuid4().hex,
        )
        user["updatedAt"] = _now()
        return user

    def _create_user(self, body: Any) -> dict[str, Any]:
        username = _text(body, "username")
        if "expireAt" not in body:
            raise FakePanelError(400, "expireAt is required")
        self._check_user_fields(body)
        allowed = {k: v for k, v in body.items() if k in _USER_FIELDS and k != "username"}
        return self.add_user(username, **allowed)

    def _update_user(self, body: Any) -> dict[str, Any]:
        user = self._user(_text(body, "uuid"))
        self._check_user_fields(body)
        changes = {k: v for k, v in body.items() if k in _USER_FIELDS and k not in ("username",)}
        if "activeInternalSquads" in changes:
            changes["activeInternalSquads"] = [self._squad_ref(s) for s in changes["activeInternalSquads"]]
        if "telegramId" in changes and changes["telegramId"] != user.get("telegramId"):
            self._forget(user)
            user.update(changes)
            self.users[user["uuid"]] = user
            self.by_username[user["username"]] = user["uuid"]
            if user["telegramId"] is not None:
                self.by_messenger_id.setdefault(int(user["telegramId"]), []).append(user["uuid"])
        else:
            user.update(changes)
        user["updatedAt"] = _now()
        return user

    def _check_user_fields(self, body: dict[str, Any]) -> None:
        status = body.get("status")
        if status is not None and status not in USER_STATUSES:
            raise FakePanelError(400, f"Invalid status {status}")
        for squad_uuid in body.get("activeInternalSquads") or []:
            self._squad(squad_uuid)

    def _system_stats(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for user in self.users.values():
            counts[user["status"]] = counts.get(user["status"], 0) + 1
        online = sum(1 for u in self.users.values() if u.get("onlineAt"))
        return {
            "cpu": {"cores": 4, "physicalCores": 2},
            "memory": {
                "total": 8 * 1024**3,
                "free": 3 * 1024**3,
                "used": 5 * 1024**3,
                "active": 4 * 1024**3,
                "available": 3 * 1024**3,
            },
            "uptime": 86400,
            "timestamp": int(datetime.now(UTC).timestamp() * 1000),
            "users": {"statusCounts": counts, "totalUsers": len(self.users)},
            "onlineStats": {
                "onlineNow": online,
                "lastDay": online,
                "lastWeek": online,
                "neverOnline": len(self.users) - online,
            },
            "nodes": {
                "totalOnline": sum(
                    1 for n in self.nodes.values() if n["isConnected"] and not n["isDisabled"]
                ),
                "totalBytesLifetime": str(sum(u["lifetimeUsedTrafficBytes"] for u in self.users.values())),
            },
        }

    def _recap(self) -> dict[str, Any]:
        month = datetime.now(UTC).strftime("%Y-%m")
        infos = [_dict_of(_dict_of(n.get("system")).get("info")) for n in self.nodes.values()]
        this_month = sum(
            r["total"] for rows in self.usage.values() for r in rows if r["date"].startswith(month)
        )
        return {
            "version": VERSION,
            "initDate": INIT_DATE,
            "total": {
                "users": len(self.users),
                "nodes": len(self.nodes),
                "traffic": str(sum(u["lifetimeUsedTrafficBytes"] for u in self.users.values())),
                "nodesRam": str(sum(int(i.get("memoryTotal") or 0) for i in infos)),
                "nodesCpuCores": sum(int(i.get("cpus") or 0) for i in infos),
                "distinctCountries": len({n["countryCode"] for n in self.nodes.values()}),
            },
            "thisMonth": {
                "users": sum(1 for u in self.users.values() if u["createdAt"].startswith(month)),
                "traffic": str(this_month),
            },
        }

    def _devices_stats(self) -> dict[str, Any]:
        every = [d for devices in self.devices.values() for d in devices]
        platforms: dict[str, int] = {}
        for device in every:
            platforms[device["platform"]] = platforms.get(device["platform"], 0) + 1
        owners = [(self.users.get(u, {}).get("username", u), len(d)) for u, d in self.devices.items() if d]
        return {
            "byPlatform": [
                {"platform": k, "count": v} for k, v in sorted(platforms.items(), key=lambda i: -i[1])
            ],
            "byApp": _by_app(d.get("userAgent") or "" for d in every),
            "topUsers": [
                {"username": name, "devicesCount": count}
                for name, count in sorted(owners, key=lambda o: -o[1])
            ][:10],
            "stats": {
                "totalUniqueDevices": len({d["hwid"] for d in every}),
                "totalHwidDevices": len(every),
                "averageHwidDevicesPerUser": round(len(every) / len(owners), 2) if owners else 0,
            },
        }

    def _geocheck(self, job_id: str) -> dict[str, Any]:
        """A job finishes at its ``geocheck_polls``-th poll (a node marked ``geocheckFails``
        fails); until then it is running."""
        job = _found(self.geochecks.get(job_id), "Job not found", "A404")
        job["polls"] += 1
        done = job["polls"] > self.geocheck_polls
        fails = bool(self.nodes.get(job["nodeUuid"], {}).get("geocheckFails"))
        result = None
        if done:
            result = {
                "success": not fails,
                "nodeUuid": job["nodeUuid"],
                "image": None if fails else dict(GEOCHECK_IMAGE),
                "rawReport": None if fails else {"country": "DE", "services": {"youtube": "ok"}},
                "message": "Node did not answer" if fails else None,
            }
        return {
            "jobId": job_id,
            "isCompleted": done and not fails,
            "isFailed": done and fails,
            "result": result,
        }

    def _bandwidth(self) -> dict[str, Any]:
        period = {"current": "1.5 GiB", "previous": "1 GiB", "difference": "512 MiB"}
        keys = (
            "bandwidthLastTwoDays",
            "bandwidthLastSevenDays",
            "bandwidthLast30Days",
            "bandwidthCalendarMonth",
            "bandwidthCurrentYear",
        )
        return {key: dict(period) for key in keys}

    def _realtime(self) -> list[dict[str, Any]]:
        return [
            {
                "nodeUuid": n["uuid"],
                "nodeName": n["name"],
                "countryCode": n["countryCode"],
                "downloadBytes": 1000,
                "uploadBytes": 500,
                "totalBytes": 1500,
                "downloadSpeedBps": 10,
                "uploadSpeedBps": 5,
                "totalSpeedBps": 15,
            }
            for n in self.nodes.values()
        ]

    def _usage_rows(self, query: Mapping[str, str]) -> Iterable[tuple[str, dict[str, Any]]]:
        start, end = query.get("start", "")[:10], query.get("end", "9999")[:10]
        for user_uuid, rows in self.usage.items():
            for row in rows:
                if start <= row["date"] <= end:
                    yield user_uuid, row

    def _weekly(self) -> list[dict[str, Any]]:
        today = datetime.now(UTC).date()
        rows = []
        for node in self.nodes.values():
            for day in range(7):
                date = (today - timedelta(days=6 - day)).isoformat()
                total = sum(
                    r["total"]
                    for _, r in self._usage_rows({"start": date, "end": date})
                    if r["nodeUuid"] == node["uuid"]
                )
                rows.append({"nodeName": node["name"], "date": date, "totalBytes": total})
        return rows

    def _nodes_range(self, query: Mapping[str, str]) -> list[dict[str, Any]]:
        totals: dict[tuple[str, str], int] = {}
        for _, row in self._usage_rows(query):
            key = (row["nodeUuid"], row["date"])
            totals[key] = totals.get(key, 0) + row["total"]
        return [
            {
                "nodeUuid": node_uuid,
                "nodeName": self.nodes.get(node_uuid, {}).get("name", ""),
                "countryCode": self.nodes.get(node_uuid, {}).get("countryCode", ""),
                "date": date,
                "totalBytes": total,
                "downloadBytes": total // 2,
                "uploadBytes": total - total // 2,
            }
            for (node_uuid, date), total in sorted(totals.items())
        ]

    def _node_users(self, node_uuid: str, query: Mapping[str, str]) -> list[dict[str, Any]]:
        return [
            {
                "userUuid": u,
                "username": self.users.get(u, {}).get("username", ""),
                "nodeUuid": node_uuid,
                "date": r["date"],
                "total": r["total"],
            }
            for u, r in self._usage_rows(query)
            if r["nodeUuid"] == node_uuid
        ]

    def _user_range(self, user_uuid: str, query: Mapping[str, str]) -> list[dict[str, Any]]:
        return [
            {
                "userUuid": user_uuid,
                "nodeUuid": r["nodeUuid"],
                "nodeName": self.nodes.get(r["nodeUuid"], {}).get("name", ""),
                "countryCode": self.nodes.get(r["nodeUuid"], {}).get("countryCode", ""),
                "date": r["date"],
                "total": r["total"],
            }
            for u, r in self._usage_rows(query)
            if u == user_uuid
        ]


_USER_FIELDS = frozenset(
    {
        "username", "status", "trafficLimitBytes", "trafficLimitStrategy", "expireAt", "telegramId", "email",
        "description", "hwidDeviceLimit", "activeInternalSquads", "externalSquadUuid", "tag",
    }
)  # fmt: skip


def _dict_of(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _by_app(user_agents: Iterable[str]) -> list[dict[str, Any]]:
    """``[{app, count}]`` by the app named first in each user agent (``Happ/1.0`` is Happ)."""
    counts: dict[str, int] = {}
    for agent in user_agents:
        app = (agent or "Unknown").split("/")[0].split(" ")[0] or "Unknown"
        counts[app] = counts.get(app, 0) + 1
    return [{"app": k, "count": v} for k, v in sorted(counts.items(), key=lambda i: (-i[1], i[0]))]


def _links(user: dict[str, Any]) -> None:
    """The user's subscription URL and crypto link, made of its short uuid."""
    user["subscriptionUrl"] = f"https://sub.example.net/{user['shortUuid']}"
    user["happ"] = {"cryptoLink": f"happ://crypt3/{user['shortUuid']}"}


def _text(body: Any, name: str) -> str:
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value:
        raise FakePanelError(400, f"{name} is required")
    return value


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _error(exc: FakePanelError) -> JSONResponse:
    return JSONResponse(
        {
            "timestamp": _now(),
            "path": "",
            "message": exc.message,
            "errorCode": exc.code,
            "statusCode": exc.status,
        },
        status_code=exc.status,
    )


@asynccontextmanager
async def serve_fake_panel(fake: FakePanel | None = None) -> AsyncIterator[FakePanel]:
    """Serve a fake panel with uvicorn on a free loopback port (``fake.url`` is its base)."""
    fake = fake or FakePanel()
    await fake.up()
    try:
        yield fake
    finally:
        await fake.down()


@pytest.fixture
async def fake_panel() -> AsyncIterator[FakePanel]:
    """A loopback fake VPN panel for one test (see the module's documentation)."""
    async with serve_fake_panel() as fake:
        yield fake


@pytest.fixture
def panel_env(fake_panel: FakePanel, monkeypatch: pytest.MonkeyPatch) -> FakePanel:
    """``fake_panel``, with the environment pointing the panel plugin at it (request it
    before ``app`` is built, e.g. from ``subsvc_settings_overrides``)."""
    for name, value in fake_panel.env().items():
        monkeypatch.setenv(name, value)
    return fake_panel
