"""The `promo_offers` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from subsvc_billing import plugin as billing_plugin
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_promo_offers import plugin
from subsvc_subscriptions import plugin as subscriptions_plugin
from subsvc_users import plugin as users_plugin

from subsvc.db import migrate
from subsvc.testing import schema_differences

TABLES = {
    "discount_offers",
    "promo_offer_templates",
    "promo_offer_logs",
    "promo_offer_active_discounts",
    "promo_offer_test_access",
    "promo_offer_broadcasts",
    "promo_offer_broadcast_recipients",
}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    path = tmp_path / "migrations.db"
    async_url, sync_url = f"sqlite+aiosqlite:///{path}", f"sqlite:///{path}"
    plugins = (promo_groups_plugin, users_plugin, billing_plugin, subscriptions_plugin, plugin)
    dirs = [p.register_migrations() for p in plugins]
    for p in plugins:
        p.register_models()

    migrate.upgrade(async_url, dirs)
    assert "promo_offers_0001" in migrate.heads(async_url, dirs)
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            assert set(inspector.get_table_names()) >= TABLES
            indexes = {ix["name"]: ix for ix in inspector.get_indexes("discount_offers")}
            open_offer = indexes["uq_discount_offers_open_user_type"]
            assert open_offer["unique"] and open_offer["column_names"] == ["user_id", "notification_type"]
            (unique,) = inspector.get_unique_constraints("promo_offer_templates")
            assert unique["column_names"] == ["offer_type"]
            diffs = schema_differences(connection, TABLES)
        assert diffs == []

        migrate.downgrade(async_url, dirs, "promo_offers@base")
        with engine.connect() as connection:
            remaining = set(sa.inspect(connection).get_table_names())
        assert not TABLES & remaining
        assert {"users", "subscriptions", "transactions"} <= remaining  # the branches it builds on stay
    finally:
        engine.dispose()
