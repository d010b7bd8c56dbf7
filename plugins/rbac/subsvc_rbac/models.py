"""The RBAC tables: roles, user-role assignments, access policies and the audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from subsvc.db import UTCDateTime, utcnow

SUPERADMIN_LEVEL = 999
REVOKED_BY_SETTINGS = "env"
REVOKED_BY_UI = "ui"
AUDIT_ID = BigInteger().with_variant(Integer, "sqlite")  # SQLite autoincrements INTEGER keys only


class AdminRole(SQLModel, table=True):
    """A named set of permission patterns at a level. System roles (seeded at start) cannot
    be deleted, and their level and ``is_active`` cannot change."""

    __tablename__ = "admin_roles"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(100), unique=True, nullable=False))
    description: str | None = Field(default=None, sa_type=Text)
    level: int = 0
    permissions: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    color: str | None = Field(default=None, max_length=7)
    icon: str | None = Field(default=None, max_length=50)
    is_system: bool = False
    is_active: bool = True
    created_by: int | None = None  # a user id, kept when that user is deleted
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class UserRole(SQLModel, table=True):
    """A role held by a user. Revoking keeps the row (``is_active`` false, with
    ``revocation_source`` ``ui`` or ``env``); assigning again reactivates it."""

    __tablename__ = "user_roles"
    __table_args__ = (
        UniqueConstraint("user_id", "role_id", name="uq_user_roles_user_id_role_id"),
        Index("ix_user_roles_role_id", "role_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(
        sa_column=Column(Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    )
    role_id: int = Field(
        sa_column=Column(Integer, ForeignKey("admin_roles.id", ondelete="CASCADE"), nullable=False)
    )
    assigned_by: int | None = None  # a user id (null: the settings), kept when that user is deleted
    assigned_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    is_active: bool = True
    revocation_source: str | None = Field(default=None, max_length=10)


class AccessPolicy(SQLModel, table=True):
    """A deny (or, without effect, allow) rule on ``resource:action`` patterns, for one role
    or for everyone (``role_id`` null), under conditions (UTC time range, IP allow-list)."""

    __tablename__ = "access_policies"
    __table_args__ = (Index("ix_access_policies_role_id", "role_id"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200)
    description: str | None = Field(default=None, sa_type=Text)
    role_id: int | None = Field(
        default=None,
        sa_column=Column(Integer, ForeignKey("admin_roles.id", ondelete="CASCADE"), nullable=True),
    )
    priority: int = 0
    effect: str = Field(max_length=10)
    conditions: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    resource: str = Field(max_length=100)
    actions: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    is_active: bool = True
    created_by: int | None = None  # a user id, kept when that user is deleted
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AuditLogEntry(SQLModel, table=True):
    """One permission-checked call (allowed: ``success``, refused: ``denied``) or RBAC event.
    ``user_id`` has no foreign key: the log outlives the users it names."""

    __tablename__ = "admin_audit_log"
    __table_args__ = (
        Index("ix_admin_audit_log_created_at", "created_at"),
        Index("ix_admin_audit_log_user_id_created_at", "user_id", "created_at"),
        Index("ix_admin_audit_log_status_created_at", "status", "created_at"),
    )

    id: int | None = Field(default=None, sa_column=Column(AUDIT_ID, primary_key=True))
    user_id: int
    action: str = Field(max_length=255)
    resource_type: str | None = Field(default=None, max_length=100)
    resource_id: str | None = Field(default=None, max_length=255)
    details: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    ip_address: str | None = Field(default=None, max_length=45)
    user_agent: str | None = Field(default=None, max_length=500)
    status: str = Field(max_length=20)
    request_method: str | None = Field(default=None, max_length=10)
    request_path: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
