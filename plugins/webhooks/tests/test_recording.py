"""Recording delivery attempts never loses good outcomes for a bad one (issue 16): the
outcomes of many deliveries (any webhooks, any events) are written in one transaction; a
receiver's answer the database cannot hold (a NUL character: PostgreSQL's text refuses it) is
made storable first, and a batch the database still refuses is recorded outcome by outcome,
so only the outcome at fault stays unrecorded (due again when its lease ends)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from subsvc_webhooks.attempts import Claimed, Outcome

from subsvc.db import utcnow
from subsvc.testing_server import LoopbackServer

from .test_delivery import deliveries, make_user, make_webhook, settled

USERS = 6


@pytest.fixture
async def nul_receiver() -> AsyncIterator[dict]:
    """A receiver answering 200 with a NUL character in its body; ``seen`` counts requests."""
    state: dict = {"seen": 0}

    async def answer(request: Request) -> Response:
        state["seen"] += 1
        return Response(b"ok\x00done", media_type="text/plain")

    app = Starlette(routes=[Route("/hook", answer, methods=["POST"])])
    async with LoopbackServer(app) as server:
        state["url"] = f"{server.url}/hook"
        yield state


async def test_an_answer_with_a_nul_character_costs_no_other_delivery(
    client, receiver, nul_receiver, wait_for
):
    good = await make_webhook(client, receiver)
    odd = await make_webhook(client, receiver, url=nul_receiver["url"])
    for _ in range(USERS):
        await make_user(client)

    await wait_for(lambda: settled(client, good["id"], USERS))
    await wait_for(lambda: settled(client, odd["id"], USERS))
    # each delivery was sent once: none was sent again because a batch was not recorded
    assert len(receiver.requests) == USERS
    assert nul_receiver["seen"] == USERS
    bodies = {item["response_body"] for item in await deliveries(client, odd["id"])}
    assert bodies == {"ok\ufffddone"}


@pytest.mark.webhook_env(WEBHOOK_TIMEOUT_SECONDS="30")
async def test_a_batch_with_an_outcome_the_database_refuses_records_the_others(
    app, client, receiver, wait_for, caplog
):
    receiver.gate = asyncio.Event()  # the attempts wait: their deliveries stay pending meanwhile
    hook = await make_webhook(client, receiver)
    for _ in range(3):
        await make_user(client)
    await wait_for(lambda: len(receiver.requests) == 3)
    pending = sorted(await deliveries(client, hook["id"], status="pending"), key=lambda d: d["id"])
    claimed = [
        Claimed(
            d["id"],
            hook["id"],
            d["event_id"],
            d["event_type"],
            d["payload"],
            d["attempt_number"],
            d["delivery_key"],
            receiver.url,
            None,
        )
        for d in pending
    ]
    now = utcnow()
    # a status no integer column takes stands for any value of an answer the database refuses
    outcomes = [
        Outcome(claimed[0], now, True, response_status=200, response_body="fine"),
        Outcome(claimed[1], now, True, response_status=2**70, response_body="refused"),
        Outcome(claimed[2], now, True, response_status=200, response_body="fine"),
    ]
    with caplog.at_level(logging.WARNING, logger="subsvc.webhooks"):
        await app.state.webhook_deliverer.record(outcomes)
    items = {item["id"]: item for item in await deliveries(client, hook["id"])}
    assert [items[c.id]["status"] for c in claimed] == ["success"] * 3
    assert [items[c.id]["response_status"] for c in claimed] == [200, None, 200]
    assert "could not be stored" in items[claimed[1].id]["error_message"]
    (message,) = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert f"delivery {claimed[1].id}" in message
    assert (await client.get(f"/webhooks/{hook['id']}")).json()["success_count"] == 3
