"""subsvc plugin `cabinet_admin_users`: user management for cabinet administrators."""

__version__ = "0.1.0"
