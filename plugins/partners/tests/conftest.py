"""Run the partners plugin with what it builds on; helpers to give a user referral earnings
and to switch withdrawals on."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from subsvc_referrals.api import record_earning

from subsvc.db import Database
from subsvc.testing_messenger import FakeBotAPI

SETTINGS = "/cabinet/admin/partners/settings"
Earn = Callable[..., Awaitable[None]]


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["partners"]


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    """The app's messenger is the loopback fake Bot API."""
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


@pytest.fixture
def earn(app: Starlette, db: Database, make_user: Any) -> Earn:
    """``await earn(user_id, kopeks)``: a referee of the user and a commission earned through
    them (credited to the balance through billing, as referrals does)."""
    keys = itertools.count(1)

    async def give(user_id: int, kopeks: int) -> None:
        referee = await make_user(referred_by_id=user_id)
        async with db.session() as session:
            assert await record_earning(
                app,
                session,
                earner_id=user_id,
                referral_id=referee.id,
                amount_kopeks=kopeks,
                reason="referral_commission_topup",
                key=f"test:{next(keys)}",
            )
            await session.commit()

    return give


@pytest.fixture
async def enabled(admin: httpx2.AsyncClient, admin_user: Any, member_user: Any) -> dict[str, Any]:
    """Withdrawals on, at least 100 kopeks, a 30-day cooldown."""
    answer = await admin.patch(
        SETTINGS,
        json={
            "withdrawal_enabled": True,
            "withdrawal_min_amount_kopeks": 100,
            "withdrawal_cooldown_days": 30,
            "withdrawal_requisites_text": "Card number",
        },
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result
