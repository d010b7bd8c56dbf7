"""Realtime channels: ``/ws`` (administrators, an API token) and ``/cabinet/ws`` (a cabinet
user, an access JWT), both with the credential in the query parameter ``token``.

Each instance holds its own sockets; what they are sent travels on the bus (in-process, or
Redis pub/sub between instances), so it reaches a socket whichever instance holds it:

- every dispatched domain event goes to every admin socket as ``{"type", "payload",
  "timestamp", "id"}`` (the outbox dispatcher publishes each event on the bus channel
  ``events``, which every instance's hub listens to);
- :meth:`Hub.send_to_user` and :meth:`Hub.send_to_cabinet_admins` publish a flat message
  (``{"type": ..., **fields}``) on the bus channel ``realtime`` for one user's cabinet
  sockets, or for the cabinet sockets of administrators. Call them from an event subscriber
  (``app.state.events.subscribe``): it runs once, on the instance that dispatches the event,
  after the change was committed.

Every socket has a bounded queue drained by its own task: a slow or dead client never holds
up the others; when its queue overflows it is dropped and closed with 1013.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from typing import Any, Literal

from pydantic_core import to_json
from starlette.requests import HTTPConnection
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from subsvc import events
from subsvc.api.errors import HTTPError
from subsvc.auth.principal import Principal
from subsvc.bus import Bus
from subsvc.db import is_database_unavailable
from subsvc.default_plugins.cabinet_jwt import bearer_token
from subsvc.plugins import PluginManager
from subsvc.tokens.service import INVALIDATE_CHANNEL, presented_token

log = logging.getLogger("subsvc.realtime")

BUS_CHANNEL = "realtime"
QUEUE_SIZE = 256  # messages waiting for one socket before it counts as too slow
CLOSE_SECONDS = 5.0

GOING_AWAY = 1001
POLICY_VIOLATION = 1008
INTERNAL_ERROR = 1011
TRY_AGAIN_LATER = 1013

# close reasons (not secrets)
ADMIN_NO_TOKEN = "Unauthorized: No token provided"  # noqa: S105
CABINET_NO_TOKEN = "Unauthorized: No token"  # noqa: S105
INVALID_TOKEN = "Unauthorized: Invalid token"  # noqa: S105
UNAVAILABLE = "Service temporarily unavailable"
TOO_SLOW = "Too slow: message queue overflow"
SHUTTING_DOWN = "Server shutting down"

ADMIN_GREETING = json.dumps(
    {"type": "connection", "status": "connected", "message": "WebSocket connection established"}
)
PONG = json.dumps({"type": "pong"})

Area = Literal["web", "cabinet"]


class Connection:
    """One accepted socket: its principal, the credential it came with (checked again when
    its API token changes) and its outgoing queue."""

    def __init__(self, websocket: WebSocket, principal: Principal, credential: str, queue_size: int) -> None:
        self.websocket = websocket
        self.principal = principal
        self.credential = credential
        self.queue: asyncio.Queue[str] = asyncio.Queue(queue_size)
        self.stopped = asyncio.Event()
        self.close_code = GOING_AWAY
        self.close_reason = ""

    def push(self, text: str) -> None:
        """Queue a message; a full queue drops the socket (it is closed with 1013)."""
        if self.stopped.is_set():
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("socket of %s %s is too slow: dropped", self.principal.kind, self.principal.id)
            self.stop(TRY_AGAIN_LATER, TOO_SLOW)

    def stop(self, code: int, reason: str) -> None:
        """End the socket: it is unregistered and closed with ``code`` and ``reason``."""
        if not self.stopped.is_set():
            self.close_code, self.close_reason = code, reason
            self.stopped.set()

    async def send_queued(self) -> None:
        while True:
            text = await self.queue.get()
            await self.websocket.send_text(text)

    async def receive(self) -> None:
        """Answer ``{"type": "ping"}`` with ``{"type": "pong"}``; ignore everything else."""
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is not None and _is_ping(text):
                self.push(PONG)


def _is_ping(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("type") == "ping"


class Hub:
    """The sockets of this instance, and the bus listeners that feed them."""

    def __init__(self, bus: Bus, plugins: PluginManager, *, queue_size: int = QUEUE_SIZE) -> None:
        self.bus = bus
        self.plugins = plugins
        self.queue_size = queue_size
        self.admins: set[Connection] = set()
        self.users: dict[int, set[Connection]] = {}
        self._checks: set[asyncio.Task[None]] = set()
        bus.subscribe(events.BUS_CHANNEL, self._on_event)
        bus.subscribe(BUS_CHANNEL, self._on_message)
        bus.subscribe(INVALIDATE_CHANNEL, self._on_token_changed)

    # --- sending -----------------------------------------------------------------------------

    async def send_to_user(self, user_id: int, message: Mapping[str, Any]) -> None:
        """Send ``message`` (a JSON object with ``type``) to every cabinet socket of the user,
        on every instance."""
        await self._publish({"user_id": user_id, "text": to_json(message).decode()})

    async def send_to_cabinet_admins(self, message: Mapping[str, Any]) -> None:
        """Send ``message`` to every cabinet socket of an administrator, on every instance."""
        await self._publish({"admins": True, "text": to_json(message).decode()})

    async def _publish(self, envelope: dict[str, Any]) -> None:
        await self.bus.publish(BUS_CHANNEL, json.dumps(envelope, ensure_ascii=False))

    def _on_event(self, raw: str) -> None:
        """A dispatched domain event: to every admin socket of this instance."""
        if not self.admins:
            return
        item = json.loads(raw)
        text = json.dumps(
            {
                "type": item["type"],
                "payload": item["payload"],
                "timestamp": item["created_at"],
                "id": item["id"],
            },
            ensure_ascii=False,
        )
        for connection in list(self.admins):
            connection.push(text)

    def _on_message(self, raw: str) -> None:
        """A message for cabinet sockets: to this instance's sockets it is meant for."""
        envelope = json.loads(raw)
        if envelope.get("admins"):
            targets = [c for group in self.users.values() for c in group if c.principal.is_admin]
        else:
            targets = list(self.users.get(envelope["user_id"], ()))
        for connection in targets:
            connection.push(envelope["text"])

    def _on_token_changed(self, raw: str) -> None:
        """An API token changed (revoked, deleted...): check its admin sockets again.

        The check runs as a task, after the token service's own listener has dropped the
        token from its cache (listeners of one message are called in turn)."""
        token_id = int(raw)
        for connection in [c for c in self.admins if c.principal.id == token_id]:
            task = asyncio.create_task(self._recheck(connection))
            self._checks.add(task)
            task.add_done_callback(self._checks.discard)

    async def _recheck(self, connection: Connection) -> None:
        try:
            principal = await self._authenticate(connection.websocket, "web", connection.credential)
        except Exception as exc:
            if not is_database_unavailable(exc):
                log.exception("checking admin socket of token %s failed", connection.principal.id)
            return  # cannot tell now: keep the socket
        if principal is None:
            connection.stop(POLICY_VIOLATION, INVALID_TOKEN)

    # --- serving -----------------------------------------------------------------------------

    async def serve_admin(self, websocket: WebSocket) -> None:
        """``/ws``: an API token in ``token`` (or ``api_key``, or the usual headers)."""
        await websocket.accept()
        query = websocket.query_params
        credential = query.get("token") or query.get("api_key") or presented_token(websocket)
        connection = await self._admit(websocket, "web", credential, ADMIN_NO_TOKEN)
        if connection is not None:
            connection.push(ADMIN_GREETING)
            self.admins.add(connection)
            await self._serve(connection)

    async def serve_cabinet(self, websocket: WebSocket) -> None:
        """``/cabinet/ws``: an access JWT in ``token`` (or ``Authorization: Bearer``)."""
        await websocket.accept()
        credential = websocket.query_params.get("token") or bearer_token(websocket)
        connection = await self._admit(websocket, "cabinet", credential, CABINET_NO_TOKEN)
        if connection is not None:
            principal = connection.principal
            connection.push(
                json.dumps({"type": "connected", "user_id": principal.id, "is_admin": principal.is_admin})
            )
            self.users.setdefault(principal.id, set()).add(connection)
            await self._serve(connection)

    async def _admit(
        self, websocket: WebSocket, area: Area, credential: str | None, no_token: str
    ) -> Connection | None:
        """A connection for a valid credential; otherwise the socket is closed (1008 for a
        missing or refused credential, 1011 when it cannot be checked) and ``None``."""
        if not credential:
            await _close(websocket, POLICY_VIOLATION, no_token)
            return None
        try:
            principal = await self._authenticate(websocket, area, credential)
        except Exception as exc:
            if is_database_unavailable(exc):
                log.warning("realtime %s socket refused: database unavailable: %s", area, exc)
            else:
                log.exception("authenticating a realtime %s socket failed", area)
            await _close(websocket, INTERNAL_ERROR, UNAVAILABLE)
            return None
        if principal is None:
            await _close(websocket, POLICY_VIOLATION, INVALID_TOKEN)
            return None
        return Connection(websocket, principal, credential, self.queue_size)

    async def _authenticate(self, websocket: WebSocket, area: Area, credential: str) -> Principal | None:
        """Ask the ``authenticate`` hook, as for an HTTP request of ``area`` carrying the
        credential in its usual header; ``None`` when it is refused."""
        try:
            value = credential.encode("latin-1")
        except UnicodeEncodeError:
            return None
        header = (b"x-api-key", value) if area == "web" else (b"authorization", b"Bearer " + value)
        others = [(k, v) for k, v in websocket.scope["headers"] if k not in (b"x-api-key", b"authorization")]
        connection = HTTPConnection({**websocket.scope, "headers": [header, *others]})
        try:
            result = await self.plugins.first_result("authenticate", connection=connection, area=area)
        except HTTPError:
            return None
        return result if isinstance(result, Principal) else None

    async def _serve(self, connection: Connection) -> None:
        """Send and receive until the client leaves, the queue overflows or the hub stops."""
        tasks = [
            asyncio.create_task(connection.send_queued()),
            asyncio.create_task(connection.receive()),
            asyncio.create_task(connection.stopped.wait()),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._remove(connection)
        await _close(connection.websocket, connection.close_code, connection.close_reason)

    def _remove(self, connection: Connection) -> None:
        self.admins.discard(connection)
        group = self.users.get(connection.principal.id)
        if group is not None:
            group.discard(connection)
            if not group:
                del self.users[connection.principal.id]

    async def close(self) -> None:
        """Close every socket of this instance (at shutdown)."""
        for connection in [*self.admins, *(c for group in self.users.values() for c in group)]:
            connection.stop(GOING_AWAY, SHUTTING_DOWN)
        for task in list(self._checks):
            task.cancel()


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    """Close unless the client is gone; never wait long on a client that does not read."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(websocket.close(code, reason), timeout=CLOSE_SECONDS)


async def _admin_socket(websocket: WebSocket) -> None:
    hub: Hub = websocket.app.state.realtime
    await hub.serve_admin(websocket)


async def _cabinet_socket(websocket: WebSocket) -> None:
    hub: Hub = websocket.app.state.realtime
    await hub.serve_cabinet(websocket)


def websocket_routes() -> list[WebSocketRoute]:
    """The two channels' routes."""
    return [
        WebSocketRoute("/ws", _admin_socket, name="admin_websocket"),
        WebSocketRoute("/cabinet/ws", _cabinet_socket, name="cabinet_websocket"),
    ]
