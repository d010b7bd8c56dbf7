"""Cabinet admin API of the rbac plugin (`/cabinet/admin/rbac/...`, access JWT + permission).
The rules' refusals (:class:`~subsvc_rbac.service.RbacError`) are answered as ``plugin.py``
declares them (the session rolls back)."""

from __future__ import annotations

PREFIX = "/cabinet/admin/rbac"
