"""subsvc plugin `rbac`: admin roles, assignments, access policies, the audit log and the
permission check of every cabinet admin route."""

__version__ = "0.1.0"
