"""menus: main menu buttons and messages, menu documents, layout history, click log"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "menus_0001"
down_revision = None
branch_labels = ("menus",)
depends_on = "core_0001"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _timestamps() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "main_menu_buttons",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("text", sa.String(64), nullable=False),
        sa.Column("action_type", sa.String(20), nullable=False),
        sa.Column("action_value", sa.String(1024), nullable=False),
        sa.Column("visibility", sa.String(20), nullable=False, server_default="all"),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("display_order", sa.Integer, nullable=False, server_default="0"),
        *_timestamps(),
    )
    op.create_index("ix_main_menu_buttons_display_order_id", "main_menu_buttons", ["display_order", "id"])
    op.create_table(
        "user_messages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("message_text", sa.Text, nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("sort_order", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_by", sa.Integer, nullable=True),
        *_timestamps(),
    )
    op.create_index("ix_user_messages_sort_order_id", "user_messages", ["sort_order", "id"])
    op.create_table(
        "menu_documents",
        sa.Column("key", sa.String(50), primary_key=True),
        sa.Column("data", sa.JSON, nullable=True),
        sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", UTCDateTime, nullable=True),
    )
    op.create_table(
        "menu_layout_history",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("action", sa.String(50), nullable=False),
        sa.Column("changes_summary", sa.Text, nullable=False, server_default=""),
        sa.Column("user_info", sa.String(255), nullable=True),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_menu_layout_history_created_at", "menu_layout_history", ["created_at"])
    op.create_table(
        "menu_button_clicks",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("button_id", sa.String(100), nullable=False),
        sa.Column("user_id", sa.BigInteger, nullable=True),
        sa.Column("callback_data", sa.String(255), nullable=True),
        sa.Column("button_type", sa.String(20), nullable=True),
        sa.Column("button_text", sa.String(255), nullable=True),
        sa.Column("clicked_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_menu_button_clicks_clicked_at", "menu_button_clicks", ["clicked_at"])
    op.create_index(
        "ix_menu_button_clicks_button_id_clicked_at", "menu_button_clicks", ["button_id", "clicked_at"]
    )
    op.create_index(
        "ix_menu_button_clicks_user_id_clicked_at", "menu_button_clicks", ["user_id", "clicked_at"]
    )


def downgrade() -> None:
    op.drop_table("menu_button_clicks")
    op.drop_table("menu_layout_history")
    op.drop_table("menu_documents")
    op.drop_table("user_messages")
    op.drop_table("main_menu_buttons")
