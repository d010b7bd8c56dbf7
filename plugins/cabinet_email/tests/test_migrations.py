"""The `cabinet_email` branch's indexes and foreign key;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLE = "cabinet_email_tokens"


def test_the_branch_makes_its_indexes_and_key(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_email") as db:
        indexes = db.indexes(TABLE)
        assert indexes["ix_cabinet_email_tokens_user_id_purpose"] == ["user_id", "purpose"]
        assert indexes["ix_cabinet_email_tokens_email_purpose"] == ["email", "purpose"]
        assert indexes["ix_cabinet_email_tokens_expires_at"] == ["expires_at"]
        assert db.foreign_keys(TABLE) == [("users", "CASCADE")]
