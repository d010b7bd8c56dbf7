"""The plugin's endpoints: OAuth login, account linking, account merge."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.api import User

from subsvc.auth.principal import Principal
from subsvc_cabinet_oauth import errors
from subsvc_cabinet_oauth.errors import FlowError


async def current_user(session: AsyncSession, principal: Principal) -> User:
    """The logged-in user's row (the cabinet's authentication already checked its status)."""
    user = await session.get(User, principal.id)
    if user is None:
        raise FlowError(404, errors.USER_NOT_FOUND)
    return user
