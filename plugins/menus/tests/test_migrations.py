"""The `menus` branch's click indexes;
the round trip every branch passes is tests/test_plugin_migrations.py."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database


def test_the_branch_makes_its_click_indexes(tmp_path: Path):
    with migrated_database(tmp_path, "menus") as db:
        assert db.indexes("menu_button_clicks") == {
            "ix_menu_button_clicks_clicked_at": ["clicked_at"],
            "ix_menu_button_clicks_button_id_clicked_at": ["button_id", "clicked_at"],
            "ix_menu_button_clicks_user_id_clicked_at": ["user_id", "clicked_at"],
        }
