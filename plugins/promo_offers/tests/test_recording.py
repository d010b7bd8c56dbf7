"""Recording a batch's outcomes never loses good ones for a bad one (issue 16): a Bot API error
description with a NUL character (PostgreSQL's text refuses one) is stored with U+FFFD, every
other recipient's outcome is recorded with it, and nobody gets the message twice (a batch left
unrecorded here is sent again)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from subsvc_promo_offers.models import OfferBroadcastRecipient

from subsvc.testing_messenger import BLOCKED, FakeBotAPI

ADMIN = "/cabinet/admin/promo-offers"
TERMS = {"notification_type": "winback", "valid_hours": 24, "discount_percent": 10, "send_notification": True}


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api: FakeBotAPI) -> dict[str, Any]:
    """The app's messenger client talks to the fake, without the platform's pacing."""
    return fake_bot_api.settings(MESSENGER_MESSAGES_PER_SECOND=0, MESSENGER_CHAT_INTERVAL_SECONDS=0)


async def test_an_error_with_a_nul_character_costs_no_other_recipient(
    admin, make_user, fake_bot_api, wait_for, rows
):
    users = [await make_user() for _ in range(4)]  # and the administrator and the member
    fake_bot_api.block(users[0].messenger_id, description=f"{BLOCKED}\x00")
    fake_bot_api.fail_chat(users[2].messenger_id, description="Bad Request: chat\x00not found")
    answer = (await admin.post(f"{ADMIN}/broadcast", json={**TERMS, "target": "all"})).json()

    async def done() -> bool:
        progress = (await admin.get(f"{ADMIN}/broadcasts/{answer['broadcast_id']}")).json()
        return progress["status"] == "completed"

    await wait_for(done, 30)
    progress = (await admin.get(f"{ADMIN}/broadcasts/{answer['broadcast_id']}")).json()
    assert (progress["total_count"], progress["sent_count"], progress["failed_count"]) == (6, 4, 2)
    assert progress["blocked_count"] == 1
    outcomes = {r.messenger_id: (r.state, r.error) for r in await rows(OfferBroadcastRecipient)}
    assert outcomes.pop(users[0].messenger_id) == ("blocked", f"{BLOCKED}\ufffd")
    assert outcomes.pop(users[2].messenger_id) == ("failed", "Bad Request: chat\ufffdnot found")
    assert set(outcomes.values()) == {("sent", None)}
    sends = Counter(call.params["chat_id"] for call in fake_bot_api.calls_of("sendMessage"))
    assert sorted(sends.values()) == [1] * 6  # each once: none sent again
