"""The `pinned_messages` branch's one-active index;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_at_most_one_message_is_active(tmp_path: Path):
    with migrated_database(tmp_path, "pinned_messages") as db:
        with db.inspector() as inspector:
            indexes = {i["name"]: i for i in inspector.get_indexes("pinned_messages")}
        assert indexes["uq_pinned_messages_active"]["unique"]
