"""promo_offers: offers, templates, log, active discounts, test access, broadcasts"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "promo_offers_0001"
down_revision = None
branch_labels = ("promo_offers",)
depends_on = ("users_0001", "subscriptions_0001")

OPEN = sa.text("is_active AND claimed_at IS NULL")
NOT_REVOKED = sa.text("revoked_at IS NULL")


def _user(ondelete: str, *, nullable: bool, name: str = "user_id") -> sa.Column:
    return sa.Column(name, sa.Integer, sa.ForeignKey("users.id", ondelete=ondelete), nullable=nullable)


def _offer(ondelete: str, *, nullable: bool) -> sa.Column:
    return sa.Column(
        "offer_id", sa.Integer, sa.ForeignKey("discount_offers.id", ondelete=ondelete), nullable=nullable
    )


def _json(name: str, default: str) -> sa.Column:
    return sa.Column(name, sa.JSON, nullable=False, server_default=sa.text(f"'{default}'"))


def _bigint_zero(name: str) -> sa.Column:
    return sa.Column(name, sa.BigInteger, nullable=False, server_default="0")


def _int_zero(name: str) -> sa.Column:
    return sa.Column(name, sa.Integer, nullable=False, server_default="0")


def upgrade() -> None:
    op.create_table(
        "discount_offers",
        sa.Column("id", sa.Integer, primary_key=True),
        _user("CASCADE", nullable=False),
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("notification_type", sa.String(100), nullable=False),
        _int_zero("discount_percent"),
        _bigint_zero("bonus_amount_kopeks"),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("claimed_at", UTCDateTime, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("effect_type", sa.String(50), nullable=False, server_default="percent_discount"),
        _json("extra_data", "{}"),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index(
        "uq_discount_offers_open_user_type",
        "discount_offers",
        ["user_id", "notification_type"],
        unique=True,
        postgresql_where=OPEN,
        sqlite_where=OPEN,
    )
    op.create_index(
        "ix_discount_offers_open_expires_at",
        "discount_offers",
        ["expires_at"],
        postgresql_where=OPEN,
        sqlite_where=OPEN,
    )
    op.create_index("ix_discount_offers_user_id_created_at", "discount_offers", ["user_id", "created_at"])
    op.create_index("ix_discount_offers_created_at_id", "discount_offers", ["created_at", "id"])

    op.create_table(
        "promo_offer_templates",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("offer_type", sa.String(50), nullable=False, unique=True),
        sa.Column("message_text", sa.Text, nullable=False),
        sa.Column("button_text", sa.String(255), nullable=False),
        sa.Column("valid_hours", sa.Integer, nullable=False, server_default="24"),
        _int_zero("discount_percent"),
        _bigint_zero("bonus_amount_kopeks"),
        sa.Column("active_discount_hours", sa.Integer, nullable=True),
        sa.Column("test_duration_hours", sa.Integer, nullable=True),
        _json("test_squad_uuids", "[]"),
        sa.Column("is_active", sa.Boolean, nullable=False, server_default=sa.true()),
        _user("SET NULL", nullable=True, name="created_by"),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )

    op.create_table(
        "promo_offer_logs",
        sa.Column("id", sa.Integer, primary_key=True),
        _user("SET NULL", nullable=True),
        _offer("SET NULL", nullable=True),
        sa.Column("action", sa.String(50), nullable=False),
        sa.Column("source", sa.String(100), nullable=True),
        sa.Column("percent", sa.Integer, nullable=True),
        sa.Column("effect_type", sa.String(50), nullable=True),
        _json("details", "{}"),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_promo_offer_logs_created_at_id", "promo_offer_logs", ["created_at", "id"])
    op.create_index("ix_promo_offer_logs_user_id_created_at", "promo_offer_logs", ["user_id", "created_at"])
    op.create_index("ix_promo_offer_logs_offer_id", "promo_offer_logs", ["offer_id"])

    op.create_table(
        "promo_offer_active_discounts",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("discount_percent", sa.Integer, nullable=False),
        sa.Column("source", sa.String(100), nullable=True),
        _offer("SET NULL", nullable=True),
        sa.Column("expires_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )

    op.create_table(
        "promo_offer_test_access",
        sa.Column("id", sa.Integer, primary_key=True),
        _offer("CASCADE", nullable=False),
        sa.Column(
            "subscription_id",
            sa.Integer,
            sa.ForeignKey("subscriptions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("squad_uuid", sa.String(255), nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("revoked_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index(
        "ix_promo_offer_test_access_due",
        "promo_offer_test_access",
        ["expires_at"],
        postgresql_where=NOT_REVOKED,
        sqlite_where=NOT_REVOKED,
    )

    op.create_table(
        "promo_offer_broadcasts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("target", sa.String(100), nullable=True),
        sa.Column("notification_type", sa.String(100), nullable=False),
        sa.Column("message_text", sa.Text, nullable=False),
        sa.Column("button_text", sa.String(255), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="queued"),
        _int_zero("total_count"),
        _int_zero("sent_count"),
        _int_zero("failed_count"),
        _int_zero("blocked_count"),
        _user("SET NULL", nullable=True, name="created_by"),
        sa.Column("lease_until", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=True),
        sa.Column("completed_at", UTCDateTime, nullable=True),
    )
    op.create_index("ix_promo_offer_broadcasts_status", "promo_offer_broadcasts", ["status"])

    op.create_table(
        "promo_offer_broadcast_recipients",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "broadcast_id",
            sa.Integer,
            sa.ForeignKey("promo_offer_broadcasts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        _offer("CASCADE", nullable=False),
        _user("CASCADE", nullable=False),
        sa.Column("messenger_id", sa.BigInteger, nullable=False),
        sa.Column("state", sa.String(10), nullable=False, server_default="pending"),
        sa.Column("error", sa.String(255), nullable=True),
        sa.Column("sent_at", UTCDateTime, nullable=True),
    )
    op.create_index(
        "ix_promo_offer_broadcast_recipients_state",
        "promo_offer_broadcast_recipients",
        ["broadcast_id", "state", "id"],
    )


def downgrade() -> None:
    op.drop_table("promo_offer_broadcast_recipients")
    op.drop_table("promo_offer_broadcasts")
    op.drop_table("promo_offer_test_access")
    op.drop_table("promo_offer_active_discounts")
    op.drop_table("promo_offer_logs")
    op.drop_table("promo_offer_templates")
    op.drop_table("discount_offers")
