"""The `menus` branch: it upgrades, matches the models, and downgrades cleanly (own SQLite file)."""

from __future__ import annotations

from pathlib import Path

from subsvc.testing_migrations import migrated_database

TABLES = {"main_menu_buttons", "user_messages", "menu_documents", "menu_layout_history", "menu_button_clicks"}


def test_upgrade_matches_models_and_downgrade_removes_the_branch(tmp_path: Path):
    with migrated_database(tmp_path, "menus") as db:
        assert db.indexes("menu_button_clicks") == {
            "ix_menu_button_clicks_clicked_at": ["clicked_at"],
            "ix_menu_button_clicks_button_id_clicked_at": ["button_id", "clicked_at"],
            "ix_menu_button_clicks_user_id_clicked_at": ["user_id", "clicked_at"],
        }
        db.round_trip("menus", head="menus_0001", tables=TABLES)
