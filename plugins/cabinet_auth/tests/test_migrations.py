"""The `cabinet_auth` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"cabinet_refresh_tokens", "cabinet_used_credentials", "cabinet_deeplink_tokens"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_auth") as db:
        assert set(db.indexes("cabinet_refresh_tokens")) == {"ix_cabinet_refresh_tokens_user_id"}
        assert db.unique_constraints("cabinet_refresh_tokens") == [["token_hash"]]
        db.round_trip("cabinet_auth", head="cabinet_auth_0001", tables=TABLES, kept={"users", "promo_groups"})
