"""The administrators' referral network of one user with ``--descendants`` users below it
(default 10,000; each user refers up to ``--fanout`` others, breadth first): ``GET
/cabinet/admin/referral-network/user/{root}`` (the whole branch counted by recursive SQL, its
revenue summed) and ``GET /cabinet/admin/referral-network/scoped?user_ids={root}`` (the graph
of the branch, at most 5000 users), beside ``GET /health`` in the same run.

Starts `subsvc serve` (pinned to CPU 0), writes the users and one provider deposit per user
straight into the database, then wrk (pinned to CPU 1) sends each request with an
administrator's access JWT; medians over ``--runs``. After the runs it checks the answers:
the branch size equals the descendants written, the scoped graph holds min(5000, all) users.

Usage: python bench/referral_network.py --database-url postgresql+asyncpg://... [--runs 3]
Quick check of the harness: python bench/referral_network.py --runs 1 --duration 2 --descendants 500
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from datetime import UTC, datetime
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
from seed import insert_admin, insert_ids, transaction
from sqlalchemy import insert
from subsvc_billing.api import Transaction
from subsvc_users.api import User

BASE = "/cabinet/admin/referral-network"
STAMP = secrets.randbelow(10**6)
MESSENGER_IDS = 7_500_000_000 + STAMP * 100_000
ADMIN_MESSENGER_ID = MESSENGER_IDS - 1
BATCH = 5_000
MAX_NODES = 5000


def _user(number: int, referrer: int | None, now: datetime) -> User:
    return User(
        messenger_id=MESSENGER_IDS + number,
        username=f"n{STAMP}x{number}",
        referral_code=f"n{STAMP}x{number}",
        referred_by_id=referrer,
        created_at=now,
        updated_at=now,
    )


async def seed(url: str, descendants: int, fanout: int) -> tuple[int, int]:
    """The administrator, the root and its branch (breadth first, ``fanout`` referees each),
    one deposit per user of the branch. Returns the administrator's and the root's ids."""
    now = datetime.now(UTC)
    async with transaction(url) as connection:
        admin_id = await insert_admin(connection, ADMIN_MESSENGER_ID, now)
        (root_id,) = await insert_ids(connection, [_user(0, None, now)])
        ids = [root_id]  # ids[k]: the k-th user written, breadth first
        start = 1
        while start <= descendants:  # a batch holds referees of users already written only
            numbers = range(start, min(descendants + 1, start + BATCH, len(ids) * fanout + 1))
            start = numbers.stop
            rows = [_user(n, ids[(n - 1) // fanout], now) for n in numbers]
            new = await insert_ids(connection, rows)
            ids.extend(new)
            deposits = [
                Transaction(
                    user_id=user_id,
                    type="deposit",
                    amount_kopeks=10_000,
                    payment_method="bench",
                    external_id=f"bench-{STAMP}-{user_id}",
                    created_at=now,
                ).model_dump(exclude={"id"})
                for user_id in new
            ]
            await connection.execute(insert(Transaction.__table__), deposits)
    return admin_id, root_id


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    log(f"seeding a root with {args.descendants:,} descendants (fan-out {args.fanout})")
    admin_id, root_id = asyncio.run(seed(svc.database_url, args.descendants, args.fanout))
    token = cabinet_access_token(admin_id, messenger_id=ADMIN_MESSENGER_ID)
    paths = {"user": f"{BASE}/user/{root_id}", "scoped": f"{BASE}/scoped?user_ids={root_id}"}
    runs = measure_gets(args, svc, workdir, paths, [token])
    detail = json_answer(svc, paths["user"], token)
    scoped = json_answer(svc, paths["scoped"], token)
    checks = {
        "branch": detail["total_branch_users"] == args.descendants,
        "revenue": detail["branch_revenue_kopeks"] == args.descendants * 10_000,
        "scoped": len(scoped["users"]) == min(MAX_NODES, args.descendants + 1),
    }
    return checked_result(runs, paths, checks)


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    labels = {
        "user": "GET .../referral-network/user/{root}",
        "scoped": "GET .../referral-network/scoped?user_ids={root}",
    }
    return gets_table(
        args,
        result,
        labels,
        f", {args.descendants:,} descendants, fan-out {args.fanout}",
        "branch size, revenue and graph size exact",
    )


ENV = admin_env(ADMIN_MESSENGER_ID)


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--descendants", type=int, default=10_000, help="users below the root (default 10000)")
    p.add_argument("--fanout", type=int, default=10, help="referees per user (default 10)")


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, ENV, measure, render)


if __name__ == "__main__":
    sys.exit(main())
