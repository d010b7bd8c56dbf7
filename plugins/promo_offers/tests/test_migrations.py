"""The `promo_offers` branch's unique open offer and template type;
the round trip every branch passes is tests/test_plugin_migrations.py."""

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


def test_one_open_offer_per_user_and_type(tmp_path: Path):
    plugins = (promo_groups_plugin, users_plugin, billing_plugin, subscriptions_plugin, plugin)
    with migrated_database(tmp_path, *plugins) as db:
        with db.inspector() as inspector:
            indexes = {ix["name"]: ix for ix in inspector.get_indexes("discount_offers")}
        open_offer = indexes["uq_discount_offers_open_user_type"]
        assert open_offer["unique"] and open_offer["column_names"] == ["user_id", "notification_type"]
        assert db.unique_constraints("promo_offer_templates") == [["offer_type"]]
