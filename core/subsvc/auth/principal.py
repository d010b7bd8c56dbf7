"""Who is calling: the principal an `authenticate` hook puts on the request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Principal:
    """An authenticated caller.

    ``kind`` is ``api_token`` (Web API; ``id`` is the token's id) or ``user`` (cabinet JWT;
    ``id`` is the user's id). ``is_admin`` is true for users listed in ``ADMIN_IDS`` or
    ``ADMIN_EMAILS``; API tokens carry no admin status (the Web API has no roles).
    """

    kind: Literal["api_token", "user"]
    id: int
    name: str = ""
    is_admin: bool = False
    claims: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Grants:
    """A cabinet user's RBAC standing: role names, permission patterns, highest role level.

    Administrators from ``ADMIN_IDS``/``ADMIN_EMAILS`` hold ``*:*`` at level 1000 whatever
    their roles; a user without roles has none of either and level 0.
    """

    roles: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()
    level: int = 0
