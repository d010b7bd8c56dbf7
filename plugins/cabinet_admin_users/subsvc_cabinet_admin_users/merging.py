"""Account merge, cabinet_admin_users' part (``cabinet_account_merging``): the removed user's
administrative settings move to a kept user that has none. When both have a row they are
combined into the kept user's (a restriction of either holds; a reason, a commission or a
panel link the kept user lacks is taken from the removed user's) and the other is deleted:
a merge must not lift a restriction."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.db import utcnow
from subsvc.hookspecs import hookimpl
from subsvc.reassign import reassign
from subsvc_cabinet_admin_users.models import UserAdminSettings


@hookimpl(optionalhook=True)
async def cabinet_account_merging(session: AsyncSession, kept_user_id: int, removed_user_id: int) -> None:
    """cabinet_admin_users' part of an account merge (see the module's text)."""
    removed = await session.get(UserAdminSettings, removed_user_id, populate_existing=True)
    if removed is None:
        return
    kept = await session.get(UserAdminSettings, kept_user_id, populate_existing=True)
    if kept is None:
        table = UserAdminSettings.__table__  # type: ignore[attr-defined]
        await reassign(session, table.c.user_id, kept_user_id, removed_user_id)
        session.expunge(removed)
        return
    kept.restriction_topup = kept.restriction_topup or removed.restriction_topup
    kept.restriction_subscription = kept.restriction_subscription or removed.restriction_subscription
    kept.restriction_reason = kept.restriction_reason or removed.restriction_reason
    if kept.referral_commission_percent is None:
        kept.referral_commission_percent = removed.referral_commission_percent
    if kept.panel_uuid is None:
        kept.panel_uuid, kept.last_panel_sync = removed.panel_uuid, removed.last_panel_sync
    kept.updated_at = utcnow()
    await session.delete(removed)
    await session.flush()
