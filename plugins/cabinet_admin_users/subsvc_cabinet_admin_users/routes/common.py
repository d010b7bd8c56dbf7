"""What every Cabinet Admin Users endpoint shares: its router settings, the user lookup
that answers 404, and the permissions of the reference (behaviours §5)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from subsvc_users.api import User

from subsvc.api import HTTPError, Router
from subsvc_cabinet_admin_users.lookup import find_user
from subsvc_cabinet_admin_users.settings import CabinetAdminUsersSettings

TAG = "Cabinet Admin Users"
PREFIX = "/cabinet/admin/users"
USER_NOT_FOUND = "User not found"

READ = "users:read"
EDIT = "users:edit"
BLOCK = "users:block"
DELETE = "users:delete"
BALANCE = "users:balance"
SUBSCRIPTION = "users:subscription"
PROMO_GROUP = "users:promo_group"
REFERRAL = "users:referral"
SYNC = "users:sync"


def new_router() -> Router:
    return Router(area="cabinet-admin", tag=TAG, prefix=PREFIX)


async def get_user(session: AsyncSession, user_id: int, *, for_update: bool = False) -> User:
    """The user with this internal id, or 404 ``User not found``."""
    user = await find_user(session, user_id, for_update=for_update)
    if user is None:
        raise HTTPError(404, USER_NOT_FOUND)
    return user


def settings(request: Request) -> CabinetAdminUsersSettings:
    return CabinetAdminUsersSettings.of(request.app)
