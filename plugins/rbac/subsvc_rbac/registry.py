"""Permission identifiers: what may be granted, who holds what, and the system role presets.

A permission is ``section:action``; a grant may also be ``section:*`` or ``*:*``. The
registry of sections and actions is every plugin's ``register_permissions`` merged
(``app.state.permissions``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from subsvc.auth.permissions import any_matches

WILDCARD = "*"
OWN_PERMISSIONS: dict[str, list[str]] = {
    "roles": ["read", "create", "edit", "delete", "assign"],
    "audit_log": ["read", "export"],
}


@dataclass(frozen=True)
class SystemRole:
    name: str
    level: int
    description: str
    color: str
    icon: str
    permissions: tuple[str, ...]


def _all(*sections: str) -> tuple[str, ...]:
    return tuple(f"{section}:*" for section in sections)


ADMIN_PERMISSIONS = (
    *_all(
        "users", "tickets", "stats", "sales_stats", "broadcasts", "tariffs", "promocodes", "promo_groups",
        "promo_offers", "campaigns", "partners", "withdrawals", "payments", "payment_methods", "servers",
        "panel", "traffic", "settings",
    ),
    "roles:read", "roles:create", "roles:edit", "roles:assign",
    *_all(
        "audit_log", "channels", "ban_system", "wheel", "apps", "email_templates", "pinned_messages",
        "updates",
    ),
    "landings:read", "landings:create", "landings:edit", "landings:delete",
)  # fmt: skip
MARKETER_PERMISSIONS = (
    *_all("campaigns", "broadcasts", "promocodes", "promo_offers", "promo_groups"),
    "stats:read", "sales_stats:read", "pinned_messages:*", "wheel:*",
)  # fmt: skip
SYSTEM_ROLES: tuple[SystemRole, ...] = (
    SystemRole(
        "Superadmin", 999, "Full access; granted only through ADMIN_IDS / ADMIN_EMAILS", "#dc2626", "crown",
        ("*:*",),
    ),
    SystemRole("Admin", 100, "Manages the service; cannot manage superadmins", "#ea580c", "shield",
               ADMIN_PERMISSIONS),
    SystemRole(
        "Moderator", 50, "Users and support tickets", "#2563eb", "gavel",
        ("users:read", "users:edit", "users:block", "tickets:*", "ban_system:*"),
    ),
    SystemRole("Marketer", 30, "Campaigns, broadcasts and promotions", "#16a34a", "megaphone",
               MARKETER_PERMISSIONS),
    SystemRole("Support", 20, "Answers tickets", "#7c3aed", "headset",
               ("tickets:read", "tickets:reply", "users:read")),
)  # fmt: skip


def split(permission: str) -> tuple[str, str]:
    """``("users", "read")`` for ``users:read``; a text without ``:`` is a section alone."""
    section, _, action = permission.partition(":")
    return section, action


def invalid_permissions(registry: Mapping[str, Sequence[str]], permissions: Iterable[str]) -> list[str]:
    """The grants that name no known permission: valid are ``*:*``, ``section:*`` for a known
    section and ``section:action`` from the registry."""
    invalid = []
    for permission in permissions:
        section, action = split(permission)
        if permission == "*:*":
            continue
        if section in registry and (action == WILDCARD or action in registry[section]):
            continue
        invalid.append(permission)
    return invalid


def not_held(held: Iterable[str], wanted: Iterable[str]) -> list[str]:
    """The grants in ``wanted`` that the patterns in ``held`` do not cover (``users:*`` covers
    ``users:read`` and ``users:*``; ``users:read`` does not cover ``users:*``)."""
    patterns = tuple(held)
    return [permission for permission in wanted if not any_matches(patterns, permission)]


def unique(permissions: Iterable[str]) -> list[str]:
    """The permissions without repeats, in their first order."""
    return list(dict.fromkeys(permissions))
