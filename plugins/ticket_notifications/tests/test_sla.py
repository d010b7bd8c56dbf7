"""The SLA reminder over a controllable clock (``now`` given to the check): tickets waiting for
support too long are announced once per cooldown, whatever the number of workers."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlmodel import select
from subsvc_ticket_notifications.models import SlaReminder
from subsvc_ticket_notifications.plugin import SLA_JOB
from subsvc_ticket_notifications.sla import interval, send_reminders

from subsvc.db import utcnow

from .conftest import admin_reply, user_message

ADMIN_CHAT = -100500600


@pytest.fixture
def subsvc_settings_overrides(fake_bot_api):
    return fake_bot_api.settings(ADMIN_NOTIFICATIONS_CHAT_ID=str(ADMIN_CHAT))


@pytest.fixture(autouse=True)
async def _configured(admin_user, member_user, configure):
    await configure(
        admin_ticket_notifications_enabled=False,  # no alerts of new tickets: only reminders here
        sla_enabled=True,
        sla_minutes=5,
        sla_reminder_cooldown_minutes=30,
        sla_check_interval_seconds=45,
    )


async def reminded(db):
    """The reminder rows as ``(ticket_id, reminded_at)``."""
    async with db.session() as session:
        return [row.ticket_id for row in (await session.exec(select(SlaReminder))).all()]


def reminders(fake):
    return [
        call.params["text"]
        for call in fake.calls_of("sendMessage")
        if "Answer wait exceeded" in call.params["text"]
    ]


async def test_a_waiting_ticket_is_reminded_once_per_cooldown(app, open_ticket, configure, fake_bot_api, db):
    await configure(admin_ticket_notifications_enabled=True)
    ticket = await open_ticket(title="Slow <one>")
    fake_bot_api.reset()
    start = utcnow()
    assert await send_reminders(app, now=start + timedelta(minutes=4)) == 0  # not late yet
    assert await send_reminders(app, now=start + timedelta(minutes=6)) == 1
    (text,) = reminders(fake_bot_api)
    assert f"Ticket #{ticket['id']}: Slow &lt;one&gt;" in text and "Waiting for 6 min" in text
    assert await send_reminders(app, now=start + timedelta(minutes=20)) == 0  # within the cooldown
    assert await send_reminders(app, now=start + timedelta(minutes=37)) == 1
    assert len(reminders(fake_bot_api)) == 2
    assert await reminded(db) == [ticket["id"]]
    assert interval(app) == 45


async def test_answered_tickets_wait_for_nobody_and_pending_ones_do(
    app, admin, member, open_ticket, configure, fake_bot_api
):
    await configure(admin_ticket_notifications_enabled=True)
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Done")
    fake_bot_api.reset()
    later = utcnow() + timedelta(minutes=10)
    assert await send_reminders(app, now=later) == 0  # answered
    await user_message(member, ticket["id"], "Not done")  # pending: waits again
    assert await send_reminders(app, now=utcnow() + timedelta(minutes=6)) == 1


async def test_a_new_user_message_starts_a_new_wait(app, member, open_ticket, configure, fake_bot_api, db):
    await configure(admin_ticket_notifications_enabled=True)
    ticket = await open_ticket()
    assert await send_reminders(app, now=utcnow() + timedelta(minutes=6)) == 1
    await user_message(member, ticket["id"], "Hello?")
    assert await reminded(db) == []
    assert await send_reminders(app, now=utcnow() + timedelta(minutes=6)) == 1


async def test_concurrent_checks_remind_once(app, open_ticket, configure, fake_bot_api):
    await configure(admin_ticket_notifications_enabled=True)
    await open_ticket()
    fake_bot_api.reset()
    later = utcnow() + timedelta(minutes=6)
    results = await asyncio.gather(*(send_reminders(app, now=later) for _ in range(4)))
    assert sum(results) == 1 and len(reminders(fake_bot_api)) == 1


async def test_switched_off_or_failed_reminders(app, open_ticket, configure, fake_bot_api, db):
    await open_ticket()
    later = utcnow() + timedelta(minutes=6)
    assert await send_reminders(app, now=later) == 0  # admin alerts are off
    await configure(admin_ticket_notifications_enabled=True, sla_enabled=False)
    assert await send_reminders(app, now=later) == 0
    await configure(sla_enabled=True)
    fake_bot_api.fail("sendMessage", 400, "Bad Request: chat not found")
    assert await send_reminders(app, now=later) == 0
    assert await reminded(db) == []  # the claim was given back: tried at the next check
    assert await send_reminders(app, now=later + timedelta(minutes=1)) == 1


async def test_the_job_is_declared_periodic(app):
    job = app.state.jobs.declared[SLA_JOB]
    assert callable(job.every)
    await job.run(app)  # one check now: nothing waits
