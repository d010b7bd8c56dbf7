"""Support's read paths per second: the cabinet admin's ticket list (``GET
/cabinet/admin/tickets``, first page and a status filter) and the administrator's unread
notification count (``GET /cabinet/admin/tickets/notifications/unread-count``), beside ``GET
/health`` in the same run.

Starts `subsvc serve` (pinned to CPU 0), then writes ``--tickets`` users with one ticket each
(default 10,000; statuses spread over open/answered/pending/closed), ``--messages`` messages
(default 100,000, spread over the tickets) and one admin notification per ticket and per user
message, straight into the database. One administrator (``ADMIN_IDS``) has read every
notification up to the middle one, and some above it one by one. wrk (pinned to CPU 1) sends
each request with the administrator's access JWT over ``--connections`` keep-alive
connections for ``--duration`` seconds; medians over ``--runs``. After the runs it checks the
answers: the list's ``total`` and the unread count equal what the database holds.

Usage: python bench/support.py [--runs 3] [--duration 10] [--connections 16]
Quick check of the harness: python bench/support.py --runs 1 --duration 2 --tickets 500 --messages 5000
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from run import (
    Service,
    admin_env,
    checked_result,
    gets_table,
    json_answer,
    load_main,
    log,
    measure_gets,
)
from scenarios import cabinet_access_token
from seed import batches, insert_admin, insert_ids, transaction
from sqlalchemy import insert
from subsvc_ticket_notifications.models import AdminRead, AdminReadMark, TicketNotification
from subsvc_tickets.models import Ticket, TicketMessage
from subsvc_users.api import User

LIST = "/cabinet/admin/tickets?page=1&per_page=20"
LIST_PENDING = "/cabinet/admin/tickets?status=pending&page=1&per_page=20"
UNREAD = "/cabinet/admin/tickets/notifications/unread-count"
STAMP = secrets.randbelow(10**6)
MESSENGER_IDS = 7_000_000_000 + STAMP * 1_000_000
ADMIN_MESSENGER_ID = MESSENGER_IDS - 1
STATUSES = ("open", "answered", "pending", "closed")
BATCH = 5_000


async def seed(url: str, tickets: int, messages: int) -> tuple[int, int]:
    """The users, tickets, messages and admin notifications; the administrator's read state.
    Returns the administrator's user id and their unread count."""
    now = datetime.now(UTC)
    async with transaction(url) as connection:
        admin_id = await insert_admin(connection, ADMIN_MESSENGER_ID, now, referral_code=f"a{STAMP}")
        ticket_ids: list[int] = []
        for numbers in batches(tickets, BATCH):
            users = [
                User(
                    messenger_id=MESSENGER_IDS + n,
                    first_name=f"Asker {n}",
                    username=f"s{STAMP}x{n}",
                    referral_code=f"s{STAMP}x{n}",
                    created_at=now,
                    updated_at=now,
                )
                for n in numbers
            ]
            user_ids = await insert_ids(connection, users)
            rows = [
                Ticket(
                    user_id=user_id,
                    title=f"Question {n}",
                    status=STATUSES[n % len(STATUSES)],
                    created_at=now - timedelta(minutes=tickets - n),
                    updated_at=now - timedelta(minutes=tickets - n),
                )
                for n, user_id in zip(numbers, user_ids, strict=True)
            ]
            ticket_ids.extend(await insert_ids(connection, rows))
        notification_ids: list[int] = []
        for numbers in batches(messages, BATCH):
            rows = [
                TicketMessage(
                    ticket_id=ticket_ids[n % len(ticket_ids)],
                    message_text=f"Message {n}",
                    is_from_admin=n % 3 == 2,
                    created_at=now,
                ).model_dump(exclude={"id"})
                for n in numbers
            ]
            await connection.execute(insert(TicketMessage.__table__), rows)
            notes = [
                TicketNotification(
                    ticket_id=ticket_ids[n % len(ticket_ids)],
                    user_id=admin_id,
                    notification_type="user_reply",
                    message=f"Reply {n}",
                    is_for_admin=True,
                    created_at=now,
                )
                for n in numbers
                if n % 3 != 2
            ]
            notification_ids.extend(await insert_ids(connection, notes))
        middle = notification_ids[len(notification_ids) // 2]
        mark = AdminReadMark(admin_user_id=admin_id, read_up_to_id=middle, marked_at=now)
        await connection.execute(insert(AdminReadMark.__table__), mark.model_dump())
        above = [n for n in notification_ids if n > middle][::10]
        reads = [AdminRead(admin_user_id=admin_id, notification_id=n).model_dump() for n in above]
        if reads:
            await connection.execute(insert(AdminRead.__table__), reads)
        unread = sum(1 for n in notification_ids if n > middle) - len(reads)
    return admin_id, unread


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    log(f"seeding {args.tickets:,} tickets, {args.messages:,} messages and their admin notifications")
    admin_id, unread = asyncio.run(seed(svc.database_url, args.tickets, args.messages))
    token = cabinet_access_token(admin_id)
    paths = {"list": LIST, "pending": LIST_PENDING, "unread": UNREAD}
    runs = measure_gets(args, svc, workdir, paths, [token])
    listed = json_answer(svc, LIST, token, timeout=30)
    counted = json_answer(svc, UNREAD, token, timeout=30)
    checks = {
        "total": listed["total"] == args.tickets,
        "page": len(listed["items"]) == min(20, args.tickets),
        "unread": counted["unread_count"] == unread,
    }
    log(f"unread expected {unread:,}, answered {counted['unread_count']:,}")
    return checked_result(runs, paths, checks)


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    labels = {
        "list": "GET /cabinet/admin/tickets (page 1 of 20)",
        "pending": "GET /cabinet/admin/tickets?status=pending",
        "unread": "GET .../notifications/unread-count",
    }
    return gets_table(
        args,
        result,
        labels,
        f", {args.tickets:,} tickets, {args.messages:,} messages",
        "totals and unread count exact",
        rate=",.0f",
    )


ENV = admin_env(ADMIN_MESSENGER_ID, SUPPORT_TICKET_SLA_ENABLED="false")


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tickets", type=int, default=10_000, help="tickets, one user each (default 10000)")
    p.add_argument("--messages", type=int, default=100_000, help="messages over the tickets (default 100000)")


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, ENV, measure, render)


if __name__ == "__main__":
    sys.exit(main())
