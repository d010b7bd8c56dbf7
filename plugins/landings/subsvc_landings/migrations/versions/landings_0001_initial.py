"""landings: landing pages and guest purchases"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "landings_0001"
down_revision = None
branch_labels = ("landings",)
depends_on = "users_0001"


def upgrade() -> None:
    op.create_table(
        "landing_pages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("slug", sa.String(100), nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("gift_enabled", sa.Boolean, nullable=False),
        sa.Column("display_order", sa.Integer, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("slug", name="uq_landing_pages_slug"),
    )
    op.create_table(
        "guest_purchases",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("landing_id", sa.Integer, sa.ForeignKey("landing_pages.id", ondelete="SET NULL")),
        sa.Column("contact_type", sa.String(20), nullable=False),
        sa.Column("contact_value", sa.String(255), nullable=False),
        sa.Column("is_gift", sa.Boolean, nullable=False),
        sa.Column("gift_recipient_type", sa.String(20)),
        sa.Column("gift_recipient_value", sa.String(255)),
        sa.Column("gift_message", sa.Text),
        sa.Column("tariff_id", sa.Integer),
        sa.Column("tariff_name", sa.String(255)),
        sa.Column("period_days", sa.Integer, nullable=False),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column("payment_method", sa.String(50)),
        sa.Column("payment_id", sa.Integer),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("buyer_user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("new_account", sa.Boolean, nullable=False),
        sa.Column("cabinet_email", sa.String(255)),
        sa.Column("cabinet_password", sa.String(64)),
        sa.Column("subscription_url", sa.Text),
        sa.Column("subscription_crypto_link", sa.Text),
        sa.Column("referrer", sa.String(500)),
        sa.Column("source", sa.String(255)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("paid_at", UTCDateTime),
        sa.Column("delivered_at", UTCDateTime),
        sa.UniqueConstraint("token", name="uq_guest_purchases_token"),
        sa.UniqueConstraint("payment_id", name="uq_guest_purchases_payment_id"),
    )
    op.create_index("ix_guest_purchases_status", "guest_purchases", ["status"])
    op.create_index(
        "ix_guest_purchases_landing_id_created_at", "guest_purchases", ["landing_id", "created_at"]
    )


def downgrade() -> None:
    op.drop_table("guest_purchases")
    op.drop_table("landing_pages")
