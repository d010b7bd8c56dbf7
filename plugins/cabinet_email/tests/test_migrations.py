"""The `cabinet_email` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "cabinet_email_tokens"


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_email") as db:
        indexes = db.indexes(TABLE)
        assert indexes["ix_cabinet_email_tokens_user_id_purpose"] == ["user_id", "purpose"]
        assert indexes["ix_cabinet_email_tokens_email_purpose"] == ["email", "purpose"]
        assert indexes["ix_cabinet_email_tokens_expires_at"] == ["expires_at"]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
        db.round_trip("cabinet_email", head="cabinet_email_0001", tables={TABLE}, kept={"users"})
