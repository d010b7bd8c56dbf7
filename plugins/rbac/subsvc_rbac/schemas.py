"""The RBAC wire contract: roles, assignments, policies, the registry and the audit log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from subsvc_rbac.policies import validate_conditions

RoleName = Annotated[str, Field(min_length=1, max_length=100)]
RoleLevel = Annotated[int, Field(ge=0, le=998)]
Color = Annotated[str, Field(max_length=7)]
Icon = Annotated[str, Field(max_length=50)]
PolicyName = Annotated[str, Field(min_length=1, max_length=200)]
Priority = Annotated[int, Field(ge=0, le=1000)]
Effect = Annotated[str, Field(pattern=r"^(allow|deny)$")]
Resource = Annotated[str, Field(min_length=1, max_length=100)]


def as_utc(value: datetime) -> datetime:
    """A date-time without an offset is taken as UTC (the reference accepted those)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


UTCMoment = Annotated[datetime, AfterValidator(as_utc)]


# --- registry and roles --------------------------------------------------------------------------


class PermissionSection(BaseModel):
    """Permission section with available actions."""

    section: str
    actions: list[str]


class RoleCreateRequest(BaseModel):
    """Create a new custom role."""

    name: RoleName
    description: str | None = None
    level: RoleLevel
    permissions: list[str] = Field(default_factory=list)
    color: Color | None = None
    icon: Icon | None = None


class RoleUpdateRequest(BaseModel):
    """Update role fields (all optional; only the fields sent change)."""

    name: RoleName | None = None
    description: str | None = None
    level: RoleLevel | None = None
    permissions: list[str] | None = None
    color: Color | None = None
    icon: Icon | None = None
    is_active: bool | None = None


class RoleResponse(BaseModel):
    """Admin role with user count."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    description: str | None = None
    level: int
    permissions: list[str] = Field(default_factory=list)
    color: str | None = None
    icon: str | None = None
    is_system: bool
    is_active: bool
    user_count: int = 0
    created_at: datetime | None = None


class RoleDeletedResponse(BaseModel):
    message: str = "Role deleted"
    role_id: int


# --- assignments -----------------------------------------------------------------------------


class RoleAssignRequest(BaseModel):
    """Assign a role to a user (internal user id); ``expires_at`` without an offset is UTC."""

    user_id: int
    role_id: int
    expires_at: UTCMoment | None = None


class UserRoleResponse(BaseModel):
    """User-role assignment details."""

    id: int
    user_id: int
    role_id: int
    role_name: str | None = None
    user_messenger_id: int | None = None
    user_username: str | None = None
    user_first_name: str | None = None
    user_email: str | None = None
    assigned_by: int | None = None
    assigned_at: datetime | None = None
    expires_at: datetime | None = None
    is_active: bool


class AssignmentRevokedResponse(BaseModel):
    message: str = "Role revoked"
    assignment_id: int


class AdminWithRolesResponse(BaseModel):
    """User that has at least one admin role."""

    user_id: int
    messenger_id: int | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    role_names: list[str] = Field(default_factory=list)


# --- policies ---------------------------------------------------------------------------------


def _conditions(value: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if value is None else validate_conditions(value)


class PolicyCreateRequest(BaseModel):
    """Create a new access policy (``role_id`` null: it applies to every role)."""

    name: PolicyName
    description: str | None = None
    role_id: int | None = None
    priority: Priority = 0
    effect: Effect
    conditions: dict[str, Any] = Field(default_factory=dict)
    resource: Resource
    actions: list[str] = Field(default_factory=list)

    _check_conditions = field_validator("conditions")(_conditions)


class PolicyUpdateRequest(BaseModel):
    """Update policy fields (all optional; only the fields sent change)."""

    name: PolicyName | None = None
    description: str | None = None
    role_id: int | None = None
    priority: Priority | None = None
    effect: Effect | None = None
    conditions: dict[str, Any] | None = None
    resource: Resource | None = None
    actions: list[str] | None = None
    is_active: bool | None = None

    _check_conditions = field_validator("conditions")(_conditions)


class PolicyResponse(BaseModel):
    """Access policy response."""

    id: int
    name: str
    description: str | None = None
    role_id: int | None = None
    role_name: str | None = None
    priority: int
    effect: str
    conditions: dict[str, Any] = Field(default_factory=dict)
    resource: str
    actions: list[str] = Field(default_factory=list)
    is_active: bool
    created_by: int | None = None
    created_at: datetime | None = None


class PolicyDeletedResponse(BaseModel):
    message: str = "Policy deleted"
    policy_id: int


# --- audit log ---------------------------------------------------------------------------------


class AuditLogEntryResponse(BaseModel):
    """Single audit log entry."""

    id: int
    user_id: int
    action: str
    resource_type: str | None = None
    resource_id: str | None = None
    details: dict[str, Any] | None = None
    ip_address: str | None = None
    user_agent: str | None = None
    status: str
    request_method: str | None = None
    request_path: str | None = None
    created_at: datetime | None = None
    user_first_name: str | None = None
    user_email: str | None = None


class AuditLogListResponse(BaseModel):
    """Paginated audit log list."""

    items: list[AuditLogEntryResponse]
    total: int
    limit: int
    offset: int
