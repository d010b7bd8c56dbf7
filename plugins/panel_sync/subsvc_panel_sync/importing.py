"""Bringing panel users into our users and subscriptions (``from_panel``), and the servers
sync of the auto sync.

A panel user is matched to a subscription by the uuid recorded for it, else by the
``short_id`` in its name, else (by its messenger id) to that user's newest subscription
that no panel user is linked to yet. Modes: ``update_only`` updates matched subscriptions
from the panel; ``new_only`` creates users (when the messenger id is unknown) and
subscriptions for unmatched panel users; ``all`` does both. A subscription with a change
still waiting to be pushed (``pending``/``failed``) is left alone: our change wins. Nothing
here publishes ``subscription.changed`` (the panel already shows these values).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from starlette.applications import Starlette
from subsvc_panel.api import PanelClient, parse_time
from subsvc_subscriptions import api as subscriptions
from subsvc_users.api import UserCreateRequest, create_user

from subsvc.db import in_list, utcnow
from subsvc.panel import GIB
from subsvc.services import services
from subsvc_panel_sync.mapping import gib, short_id_of, squads_of
from subsvc_panel_sync.models import FAILED, PENDING, SYNCED
from subsvc_panel_sync.progress import Run
from subsvc_panel_sync.queries import STATES, SUBSCRIPTIONS, USERS, run_sql, same_subscription, statements

STATUS_FROM_PANEL = {"ACTIVE": "active", "DISABLED": "disabled", "LIMITED": "limited", "EXPIRED": "expired"}


async def from_panel(run: Run, client: PanelClient) -> None:
    """Every panel user, page by page from the run's cursor."""
    size = run.settings.PANEL_SYNC_BATCH_SIZE
    while not run.stopping:
        start = int(run.cursor.get("start", 0))
        page, total = await client.users_page(start, size)
        run.total = max(total, start + len(page))
        if not page:
            return
        await _import_page(run, page, run.mode or "all")
        run.processed += len(page)
        run.cursor["start"] = start + len(page)
        await run.save()
        if start + len(page) >= total:
            return


def _state_from(panel_user: dict[str, Any], *, is_trial: bool, device_limit: int) -> subscriptions.PanelState:
    status = STATUS_FROM_PANEL.get(str(panel_user.get("status") or "").upper(), "active")
    if status == "active" and is_trial:
        status = "trial"
    return subscriptions.PanelState(
        status=status,
        end_date=parse_time(panel_user.get("expireAt")) or utcnow(),
        traffic_limit_gb=round(int(panel_user.get("trafficLimitBytes") or 0) / GIB),
        device_limit=int(panel_user.get("hwidDeviceLimit") or device_limit or 1),
        connected_squads=squads_of(panel_user),
        traffic_used_gb=round(gib(panel_user.get("usedTrafficBytes")), 3),
    )


def _differs(row: Any, state: subscriptions.PanelState) -> bool:
    current = row._mapping
    for name, value in vars(state).items():
        if value is None:
            continue
        if name == "end_date":
            if abs((current[name] - value).total_seconds()) >= 1:
                return True
        elif name == "connected_squads":
            if sorted(set(current[name] or [])) != value:
                return True
        elif current[name] != value:
            return True
    return False


async def _lookup(session: Any, dialect: str, statement: Any, key: Any, ids: list[Any]) -> dict[Any, int]:
    """``key -> id`` of the rows of ``statement`` whose ``key`` is one of ``ids``."""
    found = await run_sql(session, statement.where(in_list(key, "ids", dialect)), params={"ids": ids})
    return dict(found.all())


async def _import_page(run: Run, page: list[dict[str, Any]], mode: str) -> None:
    dialect = run.db.dialect
    users = [u for u in page if isinstance(u.get("uuid"), str)]
    uuids = [u["uuid"] for u in users]
    short_ids = [s for s in (short_id_of(u.get("username")) for u in users) if s]
    messenger_ids = [int(u["telegramId"]) for u in users if isinstance(u.get("telegramId"), int)]
    s, st, us = SUBSCRIPTIONS, STATES, USERS
    now = utcnow()
    async with run.db.session() as session:
        linked = await _lookup(
            session,
            dialect,
            sa.select(st.c.panel_uuid, st.c.subscription_id).join(
                s, sa.and_(s.c.id == st.c.subscription_id, same_subscription())
            ),
            st.c.panel_uuid,
            uuids,
        )
        by_short = await _lookup(session, dialect, sa.select(s.c.short_id, s.c.id), s.c.short_id, short_ids)
        known_users = await _lookup(
            session, dialect, sa.select(us.c.messenger_id, us.c.id), us.c.messenger_id, messenger_ids
        )
        free: dict[int, int] = {}  # user id -> newest subscription without a panel user
        if known_users:
            rows = await run_sql(
                session,
                sa.select(s.c.user_id, s.c.id)
                .outerjoin(st, sa.and_(st.c.subscription_id == s.c.id, same_subscription()))
                .where(in_list(s.c.user_id, "ids", dialect), st.c.panel_uuid.is_(None))
                .order_by(s.c.created_at.desc(), s.c.id.desc()),
                params={"ids": list(known_users.values())},
            )
            for user_id, subscription_id in rows.all():
                free.setdefault(user_id, subscription_id)
        matches: dict[str, int] = {}
        for user in users:
            sid = linked.get(user["uuid"]) or by_short.get(short_id_of(user.get("username")) or "")
            if sid is None and isinstance(user.get("telegramId"), int):
                owner = known_users.get(user["telegramId"])
                sid = free.pop(owner, None) if owner is not None else None
            if sid is not None:
                matches[user["uuid"]] = sid
        current = {}
        if matches:
            rows = await run_sql(
                session,
                sa.select(s, st.c.status.label("sync_status"), st.c.version.label("sync_version"))
                .outerjoin(st, sa.and_(st.c.subscription_id == s.c.id, same_subscription()))
                .where(in_list(s.c.id, "ids", dialect)),
                params={"ids": list(matches.values())},
            )
            current = {row.id: row for row in rows.all()}
        links: list[dict[str, Any]] = []
        for user in users:
            sid = matches.get(user["uuid"])
            row = current.get(sid) if sid is not None else None
            if row is not None:
                if mode == "new_only" or row.sync_status in (PENDING, FAILED):
                    run.count("unchanged")
                    continue
                state = _state_from(user, is_trial=row.is_trial, device_limit=row.device_limit)
                if _differs(row, state):
                    await subscriptions.write_panel_state(session, row.id, state, now)
                    run.count("updated")
                else:
                    run.count("unchanged")
                links.append(
                    _link(row.id, row.user_id, row.short_id, row.sync_version or 0, user["uuid"], now)
                )
                continue
            if mode == "update_only":
                run.count("unchanged")
                continue
            try:
                async with session.begin_nested():
                    links.append(await _create(run, session, user, known_users, now))
            except Exception as exc:  # one bad panel user does not stop the page
                run.error(f"panel user {user.get('username')}: {type(exc).__name__}: {exc}"[:500])
            else:
                run.count("created")
        if links:
            await run_sql(session, statements(dialect)["synced"], params=links)
        await session.commit()


def _link(
    subscription_id: int, user_id: int, short_id: str, version: int, uuid: str, now: datetime
) -> dict[str, Any]:
    return {
        "subscription_id": subscription_id,
        "user_id": user_id,
        "short_id": short_id,
        "status": SYNCED,
        "version": version,
        "synced_version": version,
        "attempts": 0,
        "next_attempt_at": None,
        "panel_uuid": uuid,
        "synced_at": now,
        "error": None,
        "updated_at": now,
    }


async def _create(
    run: Run, session: Any, panel_user: dict[str, Any], known_users: dict[int, int], now: datetime
) -> dict[str, Any]:
    """A user (unless the messenger id is known) and a subscription for a panel user."""
    messenger_id = panel_user.get("telegramId") if isinstance(panel_user.get("telegramId"), int) else None
    user_id = known_users.get(messenger_id) if messenger_id is not None else None
    if user_id is None:
        user = await create_user(run.app, session, UserCreateRequest(messenger_id=messenger_id))
        assert user.id is not None
        user_id = user.id
        if messenger_id is not None:
            known_users[messenger_id] = user_id
    state = _state_from(panel_user, is_trial=False, device_limit=1)
    subscription = await subscriptions.create_from_panel(session, user_id, state, now)
    assert subscription.id is not None
    return _link(subscription.id, user_id, subscription.short_id, 0, str(panel_user["uuid"]), now)


async def sync_servers(app: Starlette) -> dict[str, Any]:
    """The servers' sync with the panel's squads (``panel_sync_servers``), when a plugin
    keeps servers."""
    answers = await services(app).plugins.call_all("panel_sync_servers", app=app)
    if not answers:
        return {"skipped": True, "reason": "servers plugin is not installed"}
    return dict(answers[0])
