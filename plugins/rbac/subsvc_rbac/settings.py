"""Settings of the rbac plugin (read from the environment like core's)."""

from __future__ import annotations

from pydantic import Field

from subsvc.settings import PluginSettings


class RbacSettings(PluginSettings):
    """How long grants are trusted from memory, and how the audit log is written."""

    RBAC_GRANTS_CACHE_SECONDS: float = Field(
        10.0,
        ge=0,
        description=(
            "How long a user's roles and the access policies are trusted from memory per instance; "
            "every change through the API drops them at once on every instance (0 = read per request)."
        ),
    )
    RBAC_AUDIT_FLUSH_SECONDS: float = Field(
        0.25,
        ge=0,
        le=60,
        description=(
            "Audit rows are written in the background, in batches, at most this many seconds "
            "after the call they record (0 = as soon as the writer runs)."
        ),
    )
    RBAC_AUDIT_BATCH_SIZE: int = Field(
        200, ge=1, le=10_000, description="Most audit rows written in one INSERT."
    )
    RBAC_AUDIT_MAX_PENDING: int = Field(
        50_000,
        ge=100,
        description=(
            "Most audit rows kept in memory while the database cannot take them; "
            "beyond this the oldest are dropped with a logged error."
        ),
    )
    RBAC_AUDIT_BODY_MAX_BYTES: int = Field(
        16_384,
        ge=0,
        description=(
            "Request bodies up to this size are copied into the audit row's details "
            "(secrets masked); larger ones are recorded by size only."
        ),
    )
