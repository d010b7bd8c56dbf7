"""Alembic, configured in code: one environment, one version table, a branch per plugin."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(database_url: str, version_dirs: list[Path]) -> Config:
    """A Config whose version locations are core's branch plus the given plugin branches."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    locations = [MIGRATIONS / "versions", *version_dirs]
    config.set_main_option("version_locations", " ".join(str(p) for p in locations))
    config.set_main_option("path_separator", "space")
    config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str, version_dirs: list[Path], target: str = "heads") -> None:
    """Upgrade every branch (synchronous: call through ``asyncio.to_thread`` from async code)."""
    command.upgrade(alembic_config(database_url, version_dirs), target)


def downgrade(database_url: str, version_dirs: list[Path], target: str = "base") -> None:
    command.downgrade(alembic_config(database_url, version_dirs), target)


def heads(database_url: str, version_dirs: list[Path]) -> list[str]:
    return list(ScriptDirectory.from_config(alembic_config(database_url, version_dirs)).get_heads())
