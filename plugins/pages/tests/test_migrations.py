"""The `pages` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc_pages import plugin

from subsvc.testing_migrations import migrated_database

TABLES = {"service_rules", "public_offers", "privacy_policies", "faq_settings", "faq_pages"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, plugin) as db:
        assert db.heads() == db.core_heads() | {"pages_0001"}
        db.round_trip("pages", head="pages_0001", tables=TABLES, kept={"web_api_tokens"})
