"""The `tickets` branch: the partial unique index (one active ticket per user) exists;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_one_active_ticket_per_user_index(tmp_path: Path):
    with migrated_database(tmp_path, "tickets") as db:
        with db.inspector() as inspector:
            indexes = {i["name"]: i for i in inspector.get_indexes("tickets")}
        assert indexes["uq_tickets_user_active"]["unique"]
        assert {"ix_tickets_updated_at_id", "ix_tickets_status_updated_at_id"} <= set(indexes)
