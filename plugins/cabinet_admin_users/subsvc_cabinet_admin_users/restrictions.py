"""The restrictions an administrator sets, as the sellers ask for them (the sales plugin's
``sales_purchases_restricted``; optional: sales may be absent)."""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookimpl
from subsvc_cabinet_admin_users.models import UserAdminSettings


@hookimpl(optionalhook=True)
async def sales_purchases_restricted(app: Starlette, session: AsyncSession, user_id: int) -> bool:
    """Whether an administrator restricted the user's subscription purchases."""
    query = select(UserAdminSettings.restriction_subscription).where(
        col(UserAdminSettings.user_id) == user_id
    )
    return bool((await session.exec(query)).first())
