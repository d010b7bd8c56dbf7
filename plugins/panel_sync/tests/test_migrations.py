"""The `panel_sync` branch's indexes, the sync state that outlives its subscription, and the
data migration of 0002; the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from subsvc.testing_migrations import migrated_database


def test_the_states_have_their_indexes_and_no_foreign_key(tmp_path: Path):
    with migrated_database(tmp_path, "panel_sync") as db:
        assert db.indexes("panel_sync_states") == {
            "ix_panel_sync_states_due": ["status", "next_attempt_at"],
            "ix_panel_sync_states_user_id": ["user_id"],
        }
        # a sync state outlives its subscription (a removal's change still reaches the panel)
        assert db.foreign_keys("panel_sync_states") == []


def test_0002_keeps_the_states_and_gives_them_their_short_id(tmp_path: Path):
    with migrated_database(tmp_path, "panel_sync", at="panel_sync_0001") as db:
        with db.begin() as connection:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.exec_driver_sql(
                "INSERT INTO users (id, messenger_id, status, balance_kopeks, created_at, updated_at) "
                "VALUES (1, 5, 'active', 0, '2026-01-01', '2026-01-01')"
            )
            connection.exec_driver_sql(
                "INSERT INTO subscriptions (id, user_id, status, is_trial, start_date, end_date, "
                "traffic_limit_gb, traffic_used_gb, purchased_traffic_gb, device_limit, connected_squads, "
                "autopay_enabled, short_id, panel_sync_state, created_at, updated_at) VALUES "
                "(7, 1, 'active', 0, '2026-01-01', '2026-02-01', 0, 0, 0, 1, '[]', 0, 'abcd1234', "
                "'synced', '2026-01-01', '2026-01-01')"
            )
            connection.exec_driver_sql(
                "INSERT INTO panel_sync_states (subscription_id, user_id, status, version, synced_version, "
                "attempts, panel_uuid, updated_at) VALUES (7, 1, 'synced', 2, 2, 0, 'u-7', '2026-01-01')"
            )
        db.upgrade()
        with db.begin() as connection:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            row = connection.exec_driver_sql(
                "SELECT subscription_id, short_id, panel_uuid, version FROM panel_sync_states"
            ).one()
            assert tuple(row) == (7, "abcd1234", "u-7", 2)
            connection.exec_driver_sql("DELETE FROM subscriptions WHERE id = 7")
            assert connection.exec_driver_sql("SELECT count(*) FROM panel_sync_states").scalar() == 1

        db.downgrade_to("panel_sync_0001")  # the key is back: the orphan goes
        with db.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM panel_sync_states").scalar() == 0
            (foreign_key,) = sa.inspect(connection).get_foreign_keys("panel_sync_states")
            assert (foreign_key["referred_table"], foreign_key["options"].get("ondelete")) == (
                "subscriptions",
                "CASCADE",
            )


def test_0003_gives_the_states_no_pending_actions(tmp_path: Path):
    with migrated_database(tmp_path, "panel_sync", at="panel_sync_0002") as db:
        with db.begin() as connection:
            connection.exec_driver_sql(
                "INSERT INTO panel_sync_states (subscription_id, user_id, status, version, synced_version, "
                "attempts, updated_at) VALUES (7, 1, 'pending', 1, 0, 0, '2026-01-01')"
            )
        db.upgrade()
        with db.connect() as connection:
            row = connection.exec_driver_sql("SELECT subscription_id, pending_actions FROM panel_sync_states")
            assert tuple(row.one()) == (7, 0)
        db.downgrade_to("panel_sync_0002")
        with db.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM panel_sync_states").scalar() == 1
            columns = {c["name"] for c in sa.inspect(connection).get_columns("panel_sync_states")}
            assert "pending_actions" not in columns
