"""pages: recurring-payments terms, display modes, legal consents, info pages (release 4.1.0)"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "pages_0002"
down_revision = "pages_0001"
branch_labels = None
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "recurrent_payments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("language", sa.String(10), nullable=False),
        sa.Column("content", sa.Text, nullable=False, server_default=""),
        sa.Column("is_enabled", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("language", name="uq_recurrent_payments_language"),
    )
    op.create_table(
        "document_display_modes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("document", sa.String(32), nullable=False),
        sa.Column("display_mode", sa.String(8), nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("document", name="uq_document_display_modes_document"),
    )
    op.create_table(
        "legal_consents",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("document", sa.String(32), nullable=False),
        sa.Column("language", sa.String(10), nullable=False),
        sa.Column("version", sa.String(40), nullable=False),
        sa.Column("document_updated_at", UTCDateTime, nullable=True),
        sa.Column("source", sa.String(32), nullable=True),
        sa.Column("ip_address", sa.String(64), nullable=True),
        sa.Column("accepted_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("user_id", "document", "version", name="uq_legal_consents_user_document_version"),
    )
    op.create_index("ix_legal_consents_user_id", "legal_consents", ["user_id"])
    op.create_table(
        "info_pages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("slug", sa.String(200), nullable=False),
        sa.Column("title", sa.JSON, nullable=False),
        sa.Column("content", sa.JSON, nullable=False),
        sa.Column("page_type", sa.String(8), nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("sort_order", sa.Integer, nullable=False),
        sa.Column("icon", sa.String(50), nullable=True),
        sa.Column("replaces_tab", sa.String(16), nullable=True),
        sa.Column("display_mode", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("slug", name="uq_info_pages_slug"),
    )
    op.create_index("ix_info_pages_sort_order", "info_pages", ["sort_order"])


def downgrade() -> None:
    op.drop_index("ix_info_pages_sort_order", table_name="info_pages")
    op.drop_table("info_pages")
    op.drop_index("ix_legal_consents_user_id", table_name="legal_consents")
    op.drop_table("legal_consents")
    op.drop_table("document_display_modes")
    op.drop_table("recurrent_payments")
