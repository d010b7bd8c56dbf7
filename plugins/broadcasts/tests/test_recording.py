"""Recording a batch's outcomes never loses good ones for a bad one (issue 16): a Bot API error
description with a NUL character (PostgreSQL's text refuses one) is stored with U+FFFD, every
other recipient's outcome is recorded with it, and nobody gets the message twice."""

from __future__ import annotations

from collections import Counter

from subsvc_broadcasts.models import BroadcastRecipient

from subsvc.testing_messenger import BLOCKED

URL = "/broadcasts"
FIRST_CHAT = 500_000_000  # the first messenger id of the seeded users


async def test_an_error_with_a_nul_character_costs_no_other_recipient(
    client, users, finished, rows, fake_bot_api
):
    await users(6)
    fake_bot_api.block(FIRST_CHAT + 1, description=f"{BLOCKED}\x00")
    fake_bot_api.fail_chat(FIRST_CHAT + 4, description="Bad Request: chat\x00not found")
    created = (await client.post(URL, json={"target": "all", "message_text": "hello"})).json()
    done = await finished(created["id"])
    assert (done.status, done.sent_count, done.blocked_count, done.failed_count, done.unknown_count) == (
        "completed",
        4,
        1,
        1,
        0,
    )
    outcomes = {r.messenger_id: (r.state, r.error) for r in await rows(BroadcastRecipient)}
    assert outcomes == {
        **{FIRST_CHAT + i: ("sent", None) for i in (0, 2, 3, 5)},
        FIRST_CHAT + 1: ("blocked", f"{BLOCKED}\ufffd"),
        FIRST_CHAT + 4: ("failed", "Bad Request: chat\ufffdnot found"),
    }
    sends = Counter(call.params["chat_id"] for call in fake_bot_api.calls_of("sendMessage"))
    assert sends == {FIRST_CHAT + i: 1 for i in range(6)}  # each once: none sent again
