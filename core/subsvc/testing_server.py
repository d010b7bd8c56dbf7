"""Serve an ASGI app with uvicorn on a loopback port, inside a test's event loop.

For the loopback fakes of external systems (Bot API, VPN panel, webhook receivers, OAuth
providers) and for tests that need a real socket (WebSockets)::

    async with LoopbackServer(app) as server:
        ...  # server.url == "http://127.0.0.1:<port>", server.ws_url == "ws://..."

``stop()`` and ``start()`` again serve the same port (a system going down and coming back).
"""

from __future__ import annotations

import asyncio
import socket
from types import TracebackType
from typing import Any

import uvicorn
from starlette.types import ASGIApp


class LoopbackServer:
    """One app on ``127.0.0.1:port`` (``port=0``: a free one, kept across restarts)."""

    def __init__(self, app: ASGIApp, *, port: int = 0, **config: Any) -> None:
        self.app = app
        self.port = port
        self.config = {"log_level": "warning", "lifespan": "off", "ws_ping_interval": None, **config}
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._sock: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._task is not None

    async def start(self) -> None:
        """Bind (the same port as before, if any) and serve until :meth:`stop`."""
        if self._task is not None:
            return
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", self.port))
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(self.app, **self.config))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if task.done():
                sock.close()
                task.result()
            await asyncio.sleep(0.005)
        self._server, self._task, self._sock = server, task, sock

    async def stop(self) -> None:
        """Stop serving: connections are refused until :meth:`start`."""
        if self._server is None or self._task is None or self._sock is None:
            return
        self._server.should_exit = True
        await self._task
        self._sock.close()
        self._server = self._task = self._sock = None

    async def __aenter__(self) -> LoopbackServer:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.stop()
