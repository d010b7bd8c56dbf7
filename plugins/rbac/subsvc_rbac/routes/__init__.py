"""Cabinet admin API of the rbac plugin (`/cabinet/admin/rbac/...`, access JWT + permission)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from subsvc.api import HTTPError
from subsvc_rbac.service import RbacError

PREFIX = "/cabinet/admin/rbac"


@contextmanager
def answers() -> Iterator[None]:
    """A refused rule becomes its HTTP answer (the session rolls back)."""
    try:
        yield
    except RbacError as exc:
        raise HTTPError(exc.status, exc.detail) from None
