"""`send-message` without a bot token: 503, nothing stored."""

from __future__ import annotations

from sqlmodel import select
from subsvc_cabinet_admin_users.models import UserMessage

BASE = "/cabinet/admin/users"


async def test_without_a_messenger_it_is_503(admin, make_user, db):
    user = await make_user()
    response = await admin.post(f"{BASE}/{user.id}/send-message", json={"text": "Hi"})
    assert (response.status_code, response.json()) == (503, {"detail": "Messenger bot is not configured"})
    async with db.session() as session:
        assert (await session.exec(select(UserMessage))).all() == []
