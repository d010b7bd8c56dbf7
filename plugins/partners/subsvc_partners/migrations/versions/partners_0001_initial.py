"""partners: settings, partner standings, applications, withdrawal requests and their audit"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "partners_0001"
down_revision = None
branch_labels = ("partners",)
depends_on = "users_0001"


def _user() -> sa.Column[int]:
    return sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "partner_settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("withdrawal_enabled", sa.Boolean, nullable=True),
        sa.Column("withdrawal_min_amount_kopeks", sa.BigInteger, nullable=True),
        sa.Column("withdrawal_cooldown_days", sa.Integer, nullable=True),
        sa.Column("withdrawal_requisites_text", sa.Text, nullable=True),
        sa.Column("partner_section_visible", sa.Boolean, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "partners",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("commission_percent", sa.Integer, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_partners_status", "partners", ["status"])
    op.create_table(
        "partner_applications",
        sa.Column("id", sa.Integer, primary_key=True),
        _user(),
        sa.Column("company_name", sa.String(255), nullable=True),
        sa.Column("website_url", sa.String(500), nullable=True),
        sa.Column("messenger_channel", sa.String(255), nullable=True),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("expected_monthly_referrals", sa.BigInteger, nullable=True),
        sa.Column("desired_commission_percent", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("admin_comment", sa.Text, nullable=True),
        sa.Column("approved_commission_percent", sa.Integer, nullable=True),
        sa.Column("processed_by", sa.Integer, nullable=True),
        sa.Column("processed_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_partner_applications_user", "partner_applications", ["user_id", "id"])
    op.create_index("ix_partner_applications_status", "partner_applications", ["status"])
    op.create_table(
        "withdrawal_requests",
        sa.Column("id", sa.Integer, primary_key=True),
        _user(),
        sa.Column("amount_kopeks", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("payment_details", sa.Text, nullable=False),
        sa.Column("risk_score", sa.Integer, nullable=False),
        sa.Column("risk_analysis", sa.Text, nullable=False),
        sa.Column("reserve_transaction_id", sa.Integer, nullable=True),
        sa.Column("release_transaction_id", sa.Integer, nullable=True),
        sa.Column("admin_comment", sa.Text, nullable=True),
        sa.Column("processed_by", sa.Integer, nullable=True),
        sa.Column("processed_at", UTCDateTime, nullable=True),
        sa.Column("completed_at", UTCDateTime, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_withdrawal_requests_user", "withdrawal_requests", ["user_id", "status"])
    op.create_index("ix_withdrawal_requests_status", "withdrawal_requests", ["status", "id"])
    op.create_table(
        "withdrawal_audit",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "request_id",
            sa.Integer,
            sa.ForeignKey("withdrawal_requests.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("from_status", sa.String(16), nullable=True),
        sa.Column("to_status", sa.String(16), nullable=False),
        sa.Column("actor_id", sa.Integer, nullable=True),
        sa.Column("comment", sa.Text, nullable=True),
        sa.Column("transaction_id", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_withdrawal_audit_request_id", "withdrawal_audit", ["request_id"])


def downgrade() -> None:
    for table in (
        "withdrawal_audit",
        "withdrawal_requests",
        "partner_applications",
        "partners",
        "partner_settings",
    ):
        op.drop_table(table)
