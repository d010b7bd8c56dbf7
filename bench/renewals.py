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
    Service,
    bearer_script,
    load_main,
    log,
    measure_ceiling,
    measures_table,
    medians,
    report,
    run_wrk,
    service,
    settled,
    spread,
)
from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from subsvc_billing.api import Transaction
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

from subsvc.auth.jwt import JWTCodec

PATH = "/cabinet/subscription/renew"
JWT_SECRET = secrets.token_hex(32)
BALANCE = 10**11  # never short during a run
STAMP = secrets.randbelow(10**6)
MESSENGER_IDS = 8_000_000_000 + STAMP * 1_000_000


async def seed(url: str, users: int, tariffs: int) -> list[int]:
    """``tariffs`` tariffs, ``users`` users with a large balance, one active subscription each
    on one of the tariffs; returns the users' ids, in order."""
    now = datetime.now(UTC)
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            tariff_ids = []
            for n in range(tariffs):
                base = 20_000 + n * 1_000
                row = Tariff(
                    name=f"Bench {STAMP}-{n}",
                    display_order=n,
                    period_prices={"30": base, "90": base * 27 // 10, "180": base * 5},
                    device_limit=1 + n % 3,
                    device_price_kopeks=5_000,
                    traffic_limit_gb=100 * (1 + n % 5),
                    allowed_squads=[],
                    created_at=now,
                    updated_at=now,
                ).model_dump(exclude={"id"})
                result = await connection.execute(
                    insert(Tariff.__table__).returning(Tariff.__table__.c.id), row
                )
                tariff_ids.append(result.scalar_one())
            ids: list[int] = []
            for start in range(0, users, 5_000):
                batch = [
                    User(
                        messenger_id=MESSENGER_IDS + n,
                        first_name=f"Buyer {n}",
                        username=f"b{STAMP}x{n}",
                        balance_kopeks=BALANCE,
                        referral_code=f"r{STAMP}x{n}",
                        created_at=now,
                        updated_at=now,
                    ).model_dump(exclude={"id"})
                    for n in range(start, min(users, start + 5_000))
                ]
                result = await connection.execute(
                    insert(User.__table__).returning(User.__table__.c.id), batch
                )
                made = [row[0] for row in result.all()]
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
    finally:
        await engine.dispose()


async def ledger(url: str) -> dict[str, int]:
    """Renewal payments so far, their sum and the balances' sum."""
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            paid = select(func.count(), func.coalesce(func.sum(Transaction.amount_kopeks), 0)).where(
                Transaction.type == "subscription_payment"
            )
            count, total = (await connection.execute(paid)).one()
            balances = await connection.scalar(select(func.coalesce(func.sum(User.balance_kopeks), 0)))
        return {"payments": int(count), "paid": int(total), "balances": int(balances or 0)}
    finally:
        await engine.dispose()


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    url = svc.database_url
    log(f"seeding {args.users:,} users, {args.tariffs} tariffs and a subscription each")
    ids = asyncio.run(seed(url, args.users, args.tariffs))
    codec = JWTCodec(JWT_SECRET, access_minutes=120)
    tokens = [codec.access_token(user_id) for user_id in spread(ids, args.buyers)]
    script = bearer_script(workdir, "renew.lua", "POST", PATH, tokens, body='{"period_days": 30}')
    runs: list[dict[str, Any]] = []
    for number in range(args.runs):
        before = asyncio.run(ledger(url))
        renewed = run_wrk(args, svc.pin, svc.base + PATH, script, args.duration)
        after = asyncio.run(settled(lambda: ledger(url)))
        ceiling = measure_ceiling(args, svc, workdir)
        payments = after["payments"] - before["payments"]
        answered_2xx = renewed.requests - renewed.non_2xx
        run = {
            "renewals": payments,
            "renewals_per_second": payments / args.duration,
            "answered_per_second": renewed.rps,
            "renew_p50_ms": renewed.p50_ms,
            "renew_p99_ms": renewed.p99_ms,
            "renew_non_2xx": renewed.non_2xx,
            "socket_errors": renewed.socket_errors,
            **ceiling,
            "ledger_before": before,
            "ledger_after": after,
            "exactly_once": (
                renewed.non_2xx == 0
                # requests still in flight when wrk stopped are paid but not counted by wrk
                and answered_2xx <= payments <= answered_2xx + args.connections + renewed.socket_errors
                and before["balances"] - after["balances"] == after["paid"] - before["paid"]
            ),
        }
        log(
            f"run {number + 1}: {run['renewals_per_second']:,.0f} renewals/s, "
            f"p50 {renewed.p50_ms:.1f} ms, /health {run['health_per_second']:,.0f}/s"
        )
        runs.append(run)
    skip = ("exactly_once", "renewals", "ledger_before", "ledger_after")
    return {"runs": runs, "median": medians(runs, skip), "ok": all(run["exactly_once"] for run in runs)}


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    m = result["median"]
    rows = [
        (
            "renewals paid/s (price, debit, payment row, extension, events)",
            f"{m['renewals_per_second']:,.0f}",
        ),
        ("POST /renew p50 / p99", f"{m['renew_p50_ms']:.1f} / {m['renew_p99_ms']:.1f} ms"),
    ]
    settings = f", {args.users:,} users, {args.tariffs} tariffs, {args.buyers:,} buyers"
    return measures_table(args, settings, m, rows, ("each 200 paid once, balances exact", result["ok"]))


def benchmark(args: argparse.Namespace, workdir: Path) -> int:
    env = {
        "CABINET_JWT_SECRET": JWT_SECRET,
        "SALES_MODE": "tariffs",
        "AUTOPAY_INTERVAL_SECONDS": "0",
        "DAILY_CHARGE_INTERVAL_SECONDS": "0",
        "EXPIRY_INTERVAL_SECONDS": "0",
        "PAYMENTS_POLL_INTERVAL_SECONDS": "0",
        "PAYMENTS_EXPIRE_INTERVAL_SECONDS": "0",
    }
    with service(args, workdir, env) as svc:
        result = measure(args, svc, workdir)
    failure = "a renewal was not paid exactly once (see the runs in --json)"
    return report(args, result, render(result, args), failure)


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--users", type=int, default=100_000, help="users, one subscription each (default 100000)")
    p.add_argument("--tariffs", type=int, default=20, help="tariffs (default 20)")
    p.add_argument("--buyers", type=int, default=5_000, help="users renewing, spread over all (default 5000)")


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, benchmark, "subsvc-bench-renewals-")


if __name__ == "__main__":
    sys.exit(main())
