"""Plugin `rbac`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_rbac import hooks, merging
from subsvc_rbac.models import AccessPolicy, AdminRole, AuditLogEntry, UserRole
from subsvc_rbac.registry import OWN_PERMISSIONS
from subsvc_rbac.routes import audit, policies, roles
from subsvc_rbac.service import RbacError
from subsvc_rbac.settings import RbacSettings

plugin = Plugin(
    models=[AdminRole, UserRole, AccessPolicy, AuditLogEntry],
    endpoints=[roles.router, policies.router, audit.router],
    permissions=OWN_PERMISSIONS,
    tags={
        "Admin RBAC": "Roles, their holders and assignments; the permission registry.",
        "Admin RBAC Policies": "Access policies: deny by UTC time range or IP allow-list.",
        "Admin RBAC Audit Log": "Every permission-checked admin call; CSV export.",
    },
    settings=RbacSettings,
    hooks=[hooks, merging],
    errors={RbacError: lambda refused: (refused.status, refused.detail)},
)
