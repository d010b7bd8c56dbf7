"""Taking a test database away and bringing it back (tests of outages)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from sqlalchemy.engine import make_url
from tcp_proxy import TCPProxy


class Outage:
    """Takes the test database away and brings it back, the way it fails for real: a
    PostgreSQL server behind a cut TCP link, an SQLite file whose folder is missing."""

    def __init__(self, url: str, tmp_path: Path) -> None:
        self.original = make_url(url)
        self.sqlite = self.original.get_backend_name() == "sqlite"
        self.folder = tmp_path / "live"
        self.proxy = TCPProxy(self.original.host or "127.0.0.1", self.original.port or 5432)

    async def url(self) -> str:
        """The URL to use; the database behind it starts down."""
        if self.sqlite:
            return f"sqlite+aiosqlite:///{self.folder}/db.sqlite"
        await self.proxy.start()  # learn a free port, then cut
        await self.proxy.stop()
        return self.original.set(host="127.0.0.1", port=self.proxy.port).render_as_string(hide_password=False)

    async def up(self) -> None:
        """The database is back: for SQLite a copy of the test database as it is now (its
        write-ahead log too, which holds the latest commits)."""
        if self.sqlite:
            self.folder.mkdir()
            for suffix in ("", "-wal"):
                source = f"{self.original.database}{suffix}"
                if os.path.exists(source):  # noqa: ASYNC240 (a test's local file)
                    shutil.copy(source, self.folder / f"db.sqlite{suffix}")
        else:
            await self.proxy.start()

    async def down(self) -> None:
        await self.proxy.stop()
