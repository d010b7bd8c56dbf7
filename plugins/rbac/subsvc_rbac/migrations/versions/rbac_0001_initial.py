"""rbac: admin roles, user roles, access policies and the admin audit log"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "rbac_0001"
down_revision = None
branch_labels = ("rbac",)
depends_on = "users_0001"

AUDIT_INDEXES = {
    "ix_admin_audit_log_created_at": ["created_at"],
    "ix_admin_audit_log_user_id_created_at": ["user_id", "created_at"],
    "ix_admin_audit_log_status_created_at": ["status", "created_at"],
}


def _user_fk(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "admin_roles",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("permissions", sa.JSON, nullable=False),
        sa.Column("color", sa.String(7), nullable=True),
        sa.Column("icon", sa.String(50), nullable=True),
        sa.Column("is_system", sa.Boolean, nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "user_roles",
        sa.Column("id", sa.Integer, primary_key=True),
        _user_fk("user_id"),
        sa.Column("role_id", sa.Integer, sa.ForeignKey("admin_roles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("assigned_by", sa.Integer, nullable=True),
        sa.Column("assigned_at", UTCDateTime, nullable=False),
        sa.Column("expires_at", UTCDateTime, nullable=True),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("revocation_source", sa.String(10), nullable=True),
        sa.UniqueConstraint("user_id", "role_id", name="uq_user_roles_user_id_role_id"),
    )
    op.create_index("ix_user_roles_role_id", "user_roles", ["role_id"])
    op.create_table(
        "access_policies",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("role_id", sa.Integer, sa.ForeignKey("admin_roles.id", ondelete="CASCADE"), nullable=True),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("effect", sa.String(10), nullable=False),
        sa.Column("conditions", sa.JSON, nullable=False),
        sa.Column("resource", sa.String(100), nullable=False),
        sa.Column("actions", sa.JSON, nullable=False),
        sa.Column("is_active", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_access_policies_role_id", "access_policies", ["role_id"])
    op.create_table(
        "admin_audit_log",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("action", sa.String(255), nullable=False),
        sa.Column("resource_type", sa.String(100), nullable=True),
        sa.Column("resource_id", sa.String(255), nullable=True),
        sa.Column("details", sa.JSON, nullable=True),
        sa.Column("ip_address", sa.String(45), nullable=True),
        sa.Column("user_agent", sa.String(500), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("request_method", sa.String(10), nullable=True),
        sa.Column("request_path", sa.String(500), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    for name, columns in AUDIT_INDEXES.items():
        op.create_index(name, "admin_audit_log", columns)


def downgrade() -> None:
    for name in reversed(AUDIT_INDEXES):
        op.drop_index(name, table_name="admin_audit_log")
    op.drop_table("admin_audit_log")
    op.drop_index("ix_access_policies_role_id", table_name="access_policies")
    op.drop_table("access_policies")
    op.drop_index("ix_user_roles_role_id", table_name="user_roles")
    op.drop_table("user_roles")
    op.drop_table("admin_roles")
