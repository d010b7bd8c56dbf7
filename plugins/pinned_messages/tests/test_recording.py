"""Recording a batch's outcomes never loses good ones for a bad one (issue 16): a Bot API error
description with a NUL character (PostgreSQL's text refuses one) is stored with U+FFFD, every
other recipient's outcome is recorded with it, and nobody gets the message twice."""

from __future__ import annotations

from collections import Counter

from subsvc_pinned_messages.models import PinnedMessageDelivery

from subsvc.testing_messenger import BLOCKED

WEB = "/pinned-messages"


async def test_an_error_with_a_nul_character_costs_no_other_recipient(
    client, make_users, fake_bot_api, finished, rows
):
    chats = await make_users(6)
    fake_bot_api.block(chats[1], description=f"{BLOCKED}\x00")
    fake_bot_api.fail_chat(chats[4], description="Bad Request: chat\x00not found")
    fake_bot_api.fail("pinChatMessage", 400, "Bad Request: not enough\x00rights", times=1)
    response = await client.post(WEB, params={"broadcast": "true"}, json={"content": "News"})
    assert response.status_code == 201, response.text
    progress = await finished(client, response.json()["broadcast_id"])
    assert (
        progress["status"],
        progress["sent_count"],
        progress["failed_count"],
        progress["blocked_count"],
    ) == (
        "completed",
        3,
        3,  # blocked included
        1,
    )
    outcomes = {d.messenger_id: (d.state, d.error) for d in await rows(PinnedMessageDelivery)}
    assert outcomes[chats[1]] == ("blocked", f"{BLOCKED}\ufffd")
    assert outcomes[chats[4]] == ("failed", "Bad Request: chat\ufffdnot found")
    (unpinned,) = [chat for chat in (0, 2, 3, 5) if outcomes[chats[chat]][0] == "failed"]
    assert outcomes[chats[unpinned]][1] == "sent, not pinned: Bad Request: not enough\ufffdrights"
    assert sorted(state for state, _ in outcomes.values()) == ["blocked", *["failed"] * 2, *["sent"] * 3]
    sends = Counter(call.params["chat_id"] for call in fake_bot_api.calls_of("sendMessage"))
    # each once, none sent again (the chat that blocked the bot refused the unpin before it)
    assert sends == dict.fromkeys([chat for chat in chats if chat != chats[1]], 1)
