"""Background jobs (taskiq): enqueued, after a commit only, periodic, across processes via Redis."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid

import pytest
import subsvc_probe
from subsvc_probe import ProbeNote

from subsvc.app import create_app
from subsvc.jobs import UnknownJob
from subsvc.testing import wait_until


def runs(name: str) -> list[dict]:
    return [kwargs for job, kwargs in subsvc_probe.JOB_RUNS if job == name]


@pytest.fixture(autouse=True)
def clear_runs():
    subsvc_probe.JOB_RUNS.clear()
    yield
    subsvc_probe.JOB_RUNS.clear()


async def test_an_enqueued_job_runs_with_its_arguments(app):
    assert "register_jobs" in subsvc_probe.CALLS
    assert set(app.state.jobs.declared) == {"probe.ping", "probe.tick", "probe.fail", "core.outbox_prune"}
    await app.state.jobs.enqueue("probe.ping", note_id=7, text="héllo")
    await wait_until(lambda: runs("probe.ping"))
    assert runs("probe.ping") == [{"note_id": 7, "text": "héllo"}]


async def test_unknown_jobs_are_refused(app, db):
    with pytest.raises(UnknownJob):
        await app.state.jobs.enqueue("nobody.declared")
    async with db.session() as session:
        with pytest.raises(UnknownJob):
            app.state.jobs.enqueue_after_commit(session, "nobody.declared")


async def test_a_job_asked_for_in_a_transaction_runs_after_the_commit_and_once(app, db):
    seen_rows: list[int] = []

    async with db.session() as session:
        session.add(ProbeNote(text="first"))
        await session.flush()
        for _ in range(3):  # asked three times with the same arguments: runs once
            app.state.jobs.enqueue_after_commit(session, "probe.ping", reason="note")
        app.state.jobs.enqueue_after_commit(session, "probe.ping", reason="other")
        await asyncio.sleep(0.05)
        assert runs("probe.ping") == []  # not before the commit
        await session.commit()
    await wait_until(lambda: len(runs("probe.ping")) == 2)
    await asyncio.sleep(0.05)
    assert sorted(r["reason"] for r in runs("probe.ping")) == ["note", "other"]
    async with db.session() as session:
        seen_rows = [note.id for note in (await session.exec(ProbeNote.__table__.select())).all()]
    assert len(seen_rows) == 1


async def test_a_job_asked_for_in_a_rolled_back_transaction_never_runs(app, db):
    async with db.session() as session:
        session.add(ProbeNote(text="gone"))
        app.state.jobs.enqueue_after_commit(session, "probe.ping", reason="rolled back")
        await session.rollback()
        # the same session commits something else later: the abandoned job stays abandoned
        session.add(ProbeNote(text="kept"))
        await session.commit()
    await asyncio.sleep(0.1)
    assert runs("probe.ping") == []


async def test_a_released_savepoint_is_not_the_commit(app, db):
    async with db.session() as session:
        app.state.jobs.enqueue_after_commit(session, "probe.ping", reason="after the commit")
        async with session.begin_nested():
            session.add(ProbeNote(text="in a savepoint"))
        await asyncio.sleep(0.05)
        assert runs("probe.ping") == []  # SQLAlchemy reports the release as after_commit too
        await session.commit()
    await wait_until(lambda: runs("probe.ping"))
    assert runs("probe.ping") == [{"reason": "after the commit"}]


async def test_a_rolled_back_savepoint_keeps_the_job_of_its_transaction(app, db):
    async with db.session() as session:
        app.state.jobs.enqueue_after_commit(session, "probe.ping", reason="kept")
        async with session.begin_nested():
            session.add(ProbeNote(text="in a savepoint"))
        savepoint = await session.begin_nested()
        session.add(ProbeNote(text="rolled back"))
        await savepoint.rollback()
        await session.commit()
    await wait_until(lambda: runs("probe.ping"))
    assert runs("probe.ping") == [{"reason": "kept"}]


async def test_a_failing_job_is_logged_and_the_worker_goes_on(app, caplog):
    with caplog.at_level(logging.ERROR, logger="subsvc.jobs"):
        await app.state.jobs.enqueue("probe.fail")
        await wait_until(lambda: any("probe.fail failed" in r.getMessage() for r in caplog.records))
    await app.state.jobs.enqueue("probe.ping", after="failure")
    await wait_until(lambda: runs("probe.ping"))


async def test_a_periodic_job_runs_at_start_and_then_every_interval(subsvc_settings, app):
    first = create_app(subsvc_settings, plugins=["subsvc_probe"])
    first.state.probe_tick_seconds = 3600  # an hour: only the run at start fits in the wait
    async with first.router.lifespan_context(first):
        await wait_until(lambda: len(runs("probe.tick")) >= 1)
    fresh = create_app(subsvc_settings, plugins=["subsvc_probe"])
    fresh.state.probe_tick_seconds = 0.05
    async with fresh.router.lifespan_context(fresh):
        await wait_until(lambda: len(runs("probe.tick")) >= 5)
    stopped_at = len(runs("probe.tick"))
    await asyncio.sleep(0.15)
    assert len(runs("probe.tick")) == stopped_at  # stopping the app stops its loops


async def test_a_periodic_job_without_an_interval_does_not_run(subsvc_settings, app):
    await asyncio.sleep(0.1)  # the shared app has no probe_tick_seconds
    assert runs("probe.tick") == []


async def test_without_the_worker_no_periodic_job_runs(subsvc_settings, app):
    settings = subsvc_settings.model_copy(update={"JOBS_WORKER": False})
    fresh = create_app(settings, plugins=["subsvc_probe"])
    fresh.state.probe_tick_seconds = 0.02
    async with fresh.router.lifespan_context(fresh):
        await asyncio.sleep(0.1)
    assert runs("probe.tick") == []


async def test_stopping_the_app_waits_for_a_running_job(subsvc_settings, app):
    fresh = create_app(subsvc_settings, plugins=["subsvc_probe"])
    async with fresh.router.lifespan_context(fresh):
        await fresh.state.jobs.enqueue("probe.ping", sleep=0.2)
        await asyncio.sleep(0.02)
        assert runs("probe.ping") == []
    assert runs("probe.ping") == [{"sleep": 0.2}]


async def test_with_redis_a_job_enqueued_by_one_instance_runs_in_a_worker_instance(
    redis_url, subsvc_settings, app
):
    queue = f"subsvc:test-jobs:{uuid.uuid4().hex}"
    base = subsvc_settings.model_copy(update={"REDIS_URL": redis_url, "JOBS_QUEUE": queue})
    web = create_app(base.model_copy(update={"JOBS_WORKER": False}), plugins=["subsvc_probe"])
    worker = create_app(base, plugins=["subsvc_probe"])
    async with web.router.lifespan_context(web):
        await web.state.jobs.enqueue("probe.ping", sent_by="web")
        await asyncio.sleep(0.2)
        assert runs("probe.ping") == []  # nobody takes jobs yet: the message waits in Redis
        async with worker.router.lifespan_context(worker):
            await wait_until(lambda: runs("probe.ping"))
            async with web.state.db.session() as session:
                session.add(ProbeNote(text="x"))
                web.state.jobs.enqueue_after_commit(session, "probe.ping", sent_by="commit")
                await session.commit()
            await wait_until(lambda: len(runs("probe.ping")) == 2)
    assert [r["sent_by"] for r in runs("probe.ping")] == ["web", "commit"]


async def test_with_redis_the_worker_outwaits_the_connection_read_timeout(
    redis_url, subsvc_settings, app, caplog
):
    queue = f"subsvc:test-jobs:{uuid.uuid4().hex}"
    separator = "&" if "?" in redis_url else "?"
    settings = subsvc_settings.model_copy(
        update={"REDIS_URL": f"{redis_url}{separator}socket_timeout=0.3", "JOBS_QUEUE": queue}
    )
    worker = create_app(settings, plugins=["subsvc_probe"])
    with caplog.at_level(logging.WARNING, logger="subsvc.jobs"):
        async with worker.router.lifespan_context(worker):
            await worker.state.jobs.enqueue("probe.ping", sleep=1.2)  # runs across idle waits
            await asyncio.sleep(1.5)  # five read timeouts without a job
            time.sleep(0.8)  # noqa: ASYNC251 # a process too busy to read Redis's answer for that long
            await asyncio.sleep(0.5)
            await worker.state.jobs.enqueue("probe.ping", sent="after")
            await wait_until(lambda: len(runs("probe.ping")) == 2)
    assert runs("probe.ping") == [{"sleep": 1.2}, {"sent": "after"}]
    assert [r.getMessage() for r in caplog.records] == []


def test_the_worker_command_runs_until_sigterm(tmp_path):
    """`subsvc worker`: starts the app's background work without HTTP, stops cleanly on SIGTERM."""
    import signal
    import subprocess
    import sys
    import time

    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/worker.db",
        "SUBSVC_PLUGINS": "",  # core's internal plugins only
        "ENVIRONMENT": "test",
        "LOG_LEVEL": "INFO",
    }
    env.pop("REDIS_URL", None)
    assert (
        subprocess.run([sys.executable, "-m", "subsvc", "migrate"], env=env, capture_output=True).returncode
        == 0
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "subsvc", "worker"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = worker.stderr.readline()
            lines.append(line)
            if "worker running" in line or worker.poll() is not None:
                break
        assert any("worker running" in line for line in lines), "".join(lines)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=20) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
