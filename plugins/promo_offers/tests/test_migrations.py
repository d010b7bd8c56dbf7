"""The `promo_offers` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc_billing import plugin as billing_plugin
from subsvc_promo_groups import plugin as promo_groups_plugin
from subsvc_promo_offers import plugin
from subsvc_subscriptions import plugin as subscriptions_plugin
from subsvc_users import plugin as users_plugin

from subsvc.testing_migrations import migrated_database

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
    plugins = (promo_groups_plugin, users_plugin, billing_plugin, subscriptions_plugin, plugin)
    with migrated_database(tmp_path, *plugins) as db:
        with db.inspector() as inspector:
            indexes = {ix["name"]: ix for ix in inspector.get_indexes("discount_offers")}
        open_offer = indexes["uq_discount_offers_open_user_type"]
        assert open_offer["unique"] and open_offer["column_names"] == ["user_id", "notification_type"]
        assert db.unique_constraints("promo_offer_templates") == [["offer_type"]]
        db.round_trip(
            "promo_offers",
            head="promo_offers_0001",
            tables=TABLES,
            kept={"users", "subscriptions", "transactions"},
        )
