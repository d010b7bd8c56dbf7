"""Renewals paid from the balance per second: ``POST /cabinet/subscription/renew`` (price,
debit, transaction, extension, events in one transaction), beside ``GET /health`` in the same
run.

Starts `subsvc serve` (pinned to CPU 0), then writes ``--users`` users (default 100,000, each
with a large balance), ``--tariffs`` tariffs (default 20, with 30/90/180-day prices and a device
price) and one active subscription per user on one of them, straight into the database. wrk
(pinned to CPU 1) posts ``{"period_days": 30}`` with the access JWTs of ``--buyers`` of those
users in turn (spread over all of them), over ``--connections`` keep-alive connections for
``--duration`` seconds. Each request resolves the user's subscription, loads the buyer and the
tariff, prices the renewal with the engine, debits the balance (conditional UPDATE), records the
``subscription_payment``, extends the subscription and writes its events.

For every run it reports renewals/s (new ``subscription_payment`` rows per second of load),
the requests answered per second with their p50/p99, and ``GET /health`` with the same wrk
settings as the ceiling of the server and the load generator on this host; medians over
``--runs``. After each run it checks that every 200 paid exactly once: as many new payments as
2xx answers, the balances fallen by exactly the payments' sum.

Usage: python bench/renewals.py [--runs 3] [--duration 10] [--connections 16]
Quick check of the harness: python bench/renewals.py --runs 1 --duration 2 --users 2000 --buyers 200
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
    RunResult,
    Service,
    bearer_script,
    cabinet_env,
    load_main,
    log,
    measure_writes,
    measures_table,
    spread,
    wrk_rows,
)
from scenarios import cabinet_access_token
from seed import batches, insert_ids, transaction
from sqlalchemy import func, insert, select
from subsvc_billing.api import Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

PATH = "/cabinet/subscription/renew"
BALANCE = 10**11  # never short during a run
STAMP = secrets.randbelow(10**6)
MESSENGER_IDS = 8_000_000_000 + STAMP * 1_000_000


def _tariff(n: int, now: datetime) -> Tariff:
    base = 20_000 + n * 1_000
    return Tariff(
        name=f"Bench {STAMP}-{n}",
        display_order=n,
        period_prices={"30": base, "90": base * 27 // 10, "180": base * 5},
        device_limit=1 + n % 3,
        device_price_kopeks=5_000,
        traffic_limit_gb=100 * (1 + n % 5),
        allowed_squads=[],
        created_at=now,
        updated_at=now,
    )


async def seed(url: str, users: int, tariffs: int) -> list[int]:
    """``tariffs`` tariffs, ``users`` users with a large balance, one active subscription each
    on one of the tariffs; returns the users' ids, in order."""
    now = datetime.now(UTC)
    async with transaction(url) as connection:
        tariff_ids = await insert_ids(connection, [_tariff(n, now) for n in range(tariffs)])
        ids: list[int] = []
        for numbers in batches(users, 5_000):
            batch = [
                User(
                    messenger_id=MESSENGER_IDS + n,
                    first_name=f"Buyer {n}",
                    username=f"b{STAMP}x{n}",
                    balance_kopeks=BALANCE,
                    referral_code=f"r{STAMP}x{n}",
                    created_at=now,
                    updated_at=now,
                )
                for n in numbers
            ]
            made = await insert_ids(connection, batch)
            ids.extend(made)
            subscriptions = [
                Subscription(
                    user_id=user_id,
                    status="active",
                    start_date=now,
                    end_date=now + timedelta(days=5 + user_id % 25),
                    traffic_limit_gb=100,
                    device_limit=1 + user_id % 3,
                    connected_squads=[],
                    tariff_id=tariff_ids[user_id % len(tariff_ids)],
                    short_id=f"{STAMP % 1000:03d}{user_id:x}"[-8:].rjust(8, "0"),
                    created_at=now,
                    updated_at=now,
                ).model_dump(exclude={"id"})
                for user_id in made
            ]
            await connection.execute(insert(Subscription.__table__), subscriptions)
    return ids


async def ledger(url: str) -> dict[str, int]:
    """Renewal payments so far, their sum and the balances' sum."""
    async with transaction(url) as connection:
        paid = select(func.count(), func.coalesce(func.sum(Transaction.amount_kopeks), 0)).where(
            Transaction.type == "subscription_payment"
        )
        count, total = (await connection.execute(paid)).one()
        balances = await connection.scalar(select(func.coalesce(func.sum(User.balance_kopeks), 0)))
    return {"payments": int(count), "paid": int(total), "balances": int(balances or 0)}


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    url = svc.database_url
    log(f"seeding {args.users:,} users, {args.tariffs} tariffs and a subscription each")
    ids = asyncio.run(seed(url, args.users, args.tariffs))
    tokens = [cabinet_access_token(user_id) for user_id in spread(ids, args.buyers)]
    script = bearer_script(workdir, "renew.lua", "POST", PATH, tokens, body='{"period_days": 30}')

    def judged(renewed: RunResult, before: dict[str, int], after: dict[str, int]) -> tuple[int, bool]:
        """Renewals paid in a run, and whether every 200 paid once, the balances fallen by
        exactly the payments' sum."""
        payments = after["payments"] - before["payments"]
        answered_2xx = renewed.requests - renewed.non_2xx
        exact = (
            renewed.non_2xx == 0
            # requests still in flight when wrk stopped are paid but not counted by wrk
            and answered_2xx <= payments <= answered_2xx + args.connections + renewed.socket_errors
            and before["balances"] - after["balances"] == after["paid"] - before["paid"]
        )
        return payments, exact

    return measure_writes(args, svc, workdir, "renew", PATH, lambda _: script, lambda: ledger(url), judged)


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    m = result["median"]
    rows = [
        ("renewals paid/s (price, debit, payment row, extension, events)", f"{m['writes_per_second']:,.0f}"),
        *wrk_rows(m, {"renew": "POST /renew answered"}),
    ]
    settings = f", {args.users:,} users, {args.tariffs} tariffs, {args.buyers:,} buyers"
    return measures_table(args, settings, m, rows, ("each 200 paid once, balances exact", result["ok"]))


ENV = cabinet_env(
    SALES_MODE="tariffs",
    AUTOPAY_INTERVAL_SECONDS="0",
    DAILY_CHARGE_INTERVAL_SECONDS="0",
    EXPIRY_INTERVAL_SECONDS="0",
    PAYMENTS_POLL_INTERVAL_SECONDS="0",
    PAYMENTS_EXPIRE_INTERVAL_SECONDS="0",
)


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--users", type=int, default=100_000, help="users, one subscription each (default 100000)")
    p.add_argument("--tariffs", type=int, default=20, help="tariffs (default 20)")
    p.add_argument("--buyers", type=int, default=5_000, help="users renewing, spread over all (default 5000)")


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, ENV, measure, render)


if __name__ == "__main__":
    sys.exit(main())
