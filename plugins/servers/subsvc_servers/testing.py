"""Test fixtures of the servers plugin (a pytest plugin, entry point ``pytest11``): servers
(squads) written for tests as bare rows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from subsvc.db import Database
from subsvc.testing import stored
from subsvc_servers.models import Server

MakeServer = Callable[..., Awaitable[Server]]


@pytest.fixture
def make_server(db: Database) -> MakeServer:
    """``await make_server("squad-a", price_kopeks=5000, ...)``: a committed server row of that
    squad, named after it unless ``display_name`` is given."""

    async def make(squad: str, **fields: Any) -> Server:
        fields.setdefault("display_name", squad)
        return await stored(db, Server(squad_uuid=squad, **fields))

    return make
