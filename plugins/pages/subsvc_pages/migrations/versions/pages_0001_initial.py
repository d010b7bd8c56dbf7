"""pages: service rules, public offer, privacy policy, FAQ"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "pages_0001"
down_revision = None
branch_labels = ("pages",)
depends_on = "core_0001"


def _timestamps() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "service_rules",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("order", sa.Integer, nullable=False, server_default="0"),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("language", sa.String(10), nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        *_timestamps(),
    )
    op.create_index("ix_service_rules_language_active", "service_rules", ["language", "is_active"])
    op.create_index("ix_service_rules_language_created_at", "service_rules", ["language", "created_at"])
    for table in ("public_offers", "privacy_policies"):
        op.create_table(
            table,
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("language", sa.String(10), nullable=False),
            sa.Column("content", sa.Text, nullable=False, server_default=""),
            sa.Column("is_enabled", sa.Boolean, nullable=False, server_default=sa.true()),
            *_timestamps(),
            sa.UniqueConstraint("language", name=f"uq_{table}_language"),
        )
    op.create_table(
        "faq_settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("language", sa.String(10), nullable=False),
        sa.Column("is_enabled", sa.Boolean, nullable=False, server_default=sa.true()),
        *_timestamps(),
        sa.UniqueConstraint("language", name="uq_faq_settings_language"),
    )
    op.create_table(
        "faq_pages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("language", sa.String(10), nullable=False),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("display_order", sa.Integer, nullable=False, server_default="0"),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        *_timestamps(),
    )
    op.create_index("ix_faq_pages_language_display_order", "faq_pages", ["language", "display_order"])


def downgrade() -> None:
    op.drop_index("ix_faq_pages_language_display_order", table_name="faq_pages")
    op.drop_table("faq_pages")
    op.drop_table("faq_settings")
    op.drop_table("privacy_policies")
    op.drop_table("public_offers")
    op.drop_index("ix_service_rules_language_created_at", table_name="service_rules")
    op.drop_index("ix_service_rules_language_active", table_name="service_rules")
    op.drop_table("service_rules")
