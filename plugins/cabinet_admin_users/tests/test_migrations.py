"""The `cabinet_admin_users` branch: it upgrades, matches the models, and downgrades cleanly
(own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc_billing import plugin as billing_plugin
from subsvc_cabinet_admin_users import plugin
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_subscriptions import plugin as subscriptions_plugin
from subsvc_users import plugin as users_plugin

from subsvc.testing_migrations import migrated_database

TABLE = "user_admin_settings"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    plugins = (promo_groups_plugin, users_plugin, billing_plugin, subscriptions_plugin, plugin)
    with migrated_database(tmp_path, *plugins) as db:
        with db.inspector() as inspector:
            assert inspector.get_pk_constraint(TABLE)["constrained_columns"] == ["user_id"]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
        db.round_trip(
            "cabinet_admin_users",
            head="cabinet_admin_users_0001",
            tables={TABLE},
            kept={"users", "subscriptions", "transactions"},
        )
