"""The `cabinet_auth` branch's index and unique token;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_index_and_unique_token(tmp_path: Path):
    with migrated_database(tmp_path, "cabinet_auth") as db:
        assert set(db.indexes("cabinet_refresh_tokens")) == {"ix_cabinet_refresh_tokens_user_id"}
        assert db.unique_constraints("cabinet_refresh_tokens") == [["token_hash"]]
