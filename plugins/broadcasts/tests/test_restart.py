"""Done when: a 10,000-recipient broadcast survives a restart in the middle. A first app
instance is stopped while it sends; a second one on the same database resumes; every recipient
has received exactly one message (the fake Bot API's record of sendMessage per chat)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette

from subsvc.app import create_app
from subsvc.testing import API_KEY, asgi_transport, ensure_migrated, running

RECIPIENTS = 10_000
FIRST_CHAT = 500_000_000


@pytest.fixture
def broadcast_env() -> dict[str, Any]:
    return {"BROADCASTS_BATCH_SIZE": 500, "BROADCASTS_SEND_CONCURRENCY": 20, "BROADCASTS_UPKEEP_SECONDS": 1}


def _client(app: Starlette) -> httpx2.AsyncClient:
    transport = asgi_transport(app)
    return httpx2.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"X-API-Key": API_KEY}
    )


async def _state(app: Starlette, broadcast_id: int) -> Any:
    async with app.state.db.session() as session:
        query = sa.text(
            "SELECT status, total_count, sent_count, failed_count, unknown_count, lease_owner "
            "FROM broadcasts WHERE id = :id"
        )
        return (await session.exec(query, params={"id": broadcast_id})).one()


async def test_a_restart_in_the_middle_sends_everyone_exactly_one_message(
    subsvc_settings, subsvc_plugins, fake_bot_api, users_seeder, finished_in
):
    first = create_app(subsvc_settings, plugins=subsvc_plugins)
    await ensure_migrated(subsvc_settings.DATABASE_URL, first.state.migration_dirs)
    async with first.router.lifespan_context(first):
        await users_seeder(first, RECIPIENTS)
        async with _client(first) as http:
            response = await http.post("/broadcasts", json={"target": "all", "message_text": "Once"})
        assert response.status_code == 201, response.text
        broadcast_id = response.json()["id"]
        assert response.json()["total_count"] == RECIPIENTS
        await fake_bot_api.wait_for_calls(1_000, "sendMessage", seconds=60)
    # the first instance is gone: what it sent is recorded, its lease given back
    stopped = await _state_after(subsvc_settings, subsvc_plugins, broadcast_id)
    arrived = len(fake_bot_api.calls_of("sendMessage"))
    assert stopped.status == "in_progress" and stopped.lease_owner is None
    assert 0 < stopped.sent_count == arrived < RECIPIENTS

    second = create_app(subsvc_settings, plugins=subsvc_plugins)
    async with running(second):
        done = await finished_in(second, broadcast_id, seconds=150)
        assert (done.status, done.sent_count, done.failed_count, done.unknown_count) == (
            "completed",
            RECIPIENTS,
            0,
            0,
        )
        per_chat = Counter(call.params["chat_id"] for call in fake_bot_api.calls_of("sendMessage"))
        assert len(per_chat) == RECIPIENTS
        assert set(per_chat.values()) == {1}
        assert set(per_chat) == {FIRST_CHAT + i for i in range(RECIPIENTS)}


async def _state_after(settings: Any, plugins: Any, broadcast_id: int) -> Any:
    """The broadcast's row read through a fresh app's database (not started: nothing sends)."""
    reader = create_app(settings, plugins=plugins)
    try:
        return await _state(reader, broadcast_id)
    finally:
        await reader.state.db.dispose()
