"""The kernel's services of an app, typed: ``services(request.app).db`` instead of an untyped
``request.app.state.db``.

A view over ``app.state`` (read at each access, so a test that swaps ``app.state.settings``
is seen): the state stays where the app puts it, only the types are added. A plugin's own
settings are :meth:`subsvc.settings.PluginSettings.of`.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette

from subsvc.api.endpoint import Endpoint
from subsvc.auth.jwt import JWTCodec
from subsvc.bus import Bus
from subsvc.db import Database
from subsvc.events import EventBus
from subsvc.jobs import Jobs
from subsvc.messenger import Messenger
from subsvc.plugins import PluginManager
from subsvc.realtime import Hub
from subsvc.settings import Settings


class Services:
    """What the kernel gives every plugin: the database, events, jobs, realtime hub, the
    messenger client, the JWT codec, core's settings, the plugin manager and the endpoints."""

    __slots__ = ("_state",)

    def __init__(self, app: Starlette) -> None:
        self._state: Any = app.state

    @property
    def db(self) -> Database:
        return self._state.db  # type: ignore[no-any-return]

    @property
    def events(self) -> EventBus:
        return self._state.events  # type: ignore[no-any-return]

    @property
    def jobs(self) -> Jobs:
        return self._state.jobs  # type: ignore[no-any-return]

    @property
    def realtime(self) -> Hub:
        return self._state.realtime  # type: ignore[no-any-return]

    @property
    def bus(self) -> Bus:
        return self._state.bus  # type: ignore[no-any-return]

    @property
    def messenger(self) -> Messenger:
        return self._state.messenger  # type: ignore[no-any-return]

    @property
    def jwt(self) -> JWTCodec:
        return self._state.jwt  # type: ignore[no-any-return]

    @property
    def settings(self) -> Settings:
        return self._state.settings  # type: ignore[no-any-return]

    @property
    def plugins(self) -> PluginManager:
        return self._state.plugins  # type: ignore[no-any-return]

    @property
    def endpoints(self) -> list[Endpoint]:
        """Every endpoint the app serves, at the path it serves it."""
        return self._state.endpoints  # type: ignore[no-any-return]


def services(app: Starlette) -> Services:
    """The kernel's services of ``app``, typed."""
    return Services(app)
