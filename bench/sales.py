"""The purchase options a buyer reads: ``GET /cabinet/subscription/purchase-options`` per second,
beside ``GET /health`` in the same run.

Starts `subsvc serve` (pinned to CPU 0) on a database seeded with ``--users`` users (100,000)
and ``--tariffs`` active tariffs (20, each with four periods), every tenth user holding a
subscription of one of them. wrk (pinned to CPU 1) asks for the purchase options with the
access JWTs of ``--buyers`` users drawn across the table (each request another buyer) over
``--connections`` keep-alive connections for ``--duration`` seconds; then ``GET /health``
with the same settings, the ceiling of the server and the load generator on this host. Each
options answer loads the buyer (promo group and balance, one query, plus the
personal-discount hook), the tariffs with their groups (two queries), the buyer's
subscription and held tariffs, and prices every period of every tariff with the pricing
engine. Medians over ``--runs``; every answer must be 200.

Usage: python bench/sales.py [--runs 3] [--duration 10] [--connections 16]
       [--database-url postgresql+asyncpg://...]
Quick check of the harness: python bench/sales.py --runs 1 --duration 2 --users 2000
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
    BenchError,
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
    spread,
)
from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

from subsvc.auth.jwt import JWTCodec

PATH = "/cabinet/subscription/purchase-options"
JWT_SECRET = secrets.token_urlsafe(48)
FIRST_MESSENGER_ID = 5_000_000_000


async def seed(url: str, users: int, tariffs: int) -> list[int]:
    """The users, tariffs and subscriptions (kept when a database of an earlier run has them);
    returns the user ids."""
    engine = create_async_engine(url, poolclass=NullPool)
    now = datetime.now(UTC)
    try:
        async with engine.begin() as connection:
            have = await connection.scalar(select(func.count()).select_from(User))
            if not await connection.scalar(select(func.count()).select_from(Tariff)):
                rows = [
                    {
                        "name": f"Tariff {n}",
                        "display_order": n,
                        "is_active": True,
                        "tier_level": 1 + n % 4,
                        "traffic_limit_gb": 0 if n % 5 == 0 else 50 * (1 + n % 4),
                        "device_limit": 1 + n % 3,
                        "device_price_kopeks": 5_000,
                        "max_device_limit": 10,
                        "period_prices": {
                            "30": 19_900 + n * 1_000,
                            "90": 49_900 + n * 2_500,
                            "180": 89_900 + n * 4_000,
                            "360": 159_900 + n * 7_000,
                        },
                        "allowed_squads": [f"squad-{n % 5}"],
                        "server_traffic_limits": {},
                        "traffic_topup_packages": {},
                        "created_at": now,
                        "updated_at": now,
                    }
                    for n in range(1, tariffs + 1)
                ]
                await connection.execute(insert(Tariff.__table__), rows)
            if have < users:
                batch = []
                for n in range(have, users):
                    batch.append(
                        {
                            "messenger_id": FIRST_MESSENGER_ID + n,
                            "first_name": f"Buyer {n}",
                            "status": "active",
                            "language": "ru",
                            "balance_kopeks": (n * 37) % 100_000,
                            "has_had_paid_subscription": False,
                            "has_made_first_topup": False,
                            "referral_code": f"sb{n:09d}",
                            "created_at": now,
                            "updated_at": now,
                        }
                    )
                    if len(batch) == 5_000:
                        await connection.execute(insert(User.__table__), batch)
                        batch = []
                if batch:
                    await connection.execute(insert(User.__table__), batch)
            ids = list((await connection.scalars(select(User.id).order_by(User.id))).all())
            tariff_ids = list((await connection.scalars(select(Tariff.id).order_by(Tariff.id))).all())
            if not await connection.scalar(select(func.count()).select_from(Subscription)):
                subs = [
                    {
                        "user_id": user_id,
                        "status": "active",
                        "is_trial": False,
                        "start_date": now,
                        "end_date": now + timedelta(days=30),
                        "traffic_limit_gb": 100,
                        "traffic_used_gb": 0.0,
                        "purchased_traffic_gb": 0,
                        "device_limit": 2,
                        "connected_squads": ["squad-1"],
                        "autopay_enabled": False,
                        "autopay_days_before": 3,
                        "tariff_id": tariff_ids[i % len(tariff_ids)],
                        "short_id": secrets.token_hex(4),
                        "created_at": now,
                        "updated_at": now,
                    }
                    for i, user_id in enumerate(ids[::10])
                ]
                for start in range(0, len(subs), 5_000):
                    await connection.execute(insert(Subscription.__table__), subs[start : start + 5_000])
        return ids
    finally:
        await engine.dispose()


def measure(args: argparse.Namespace, svc: Service, ids: list[int], workdir: Path) -> dict[str, Any]:
    codec = JWTCodec(JWT_SECRET, access_minutes=240)
    tokens = [codec.access_token(user_id) for user_id in spread(ids, args.buyers)]
    script = bearer_script(workdir, "options.lua", "GET", PATH, tokens)
    runs = []
    for number in range(args.runs):
        options = run_wrk(args, svc.pin, svc.base + PATH, script, args.duration)
        ceiling = measure_ceiling(args, svc, workdir)
        run = {
            "options_per_second": options.rps,
            "options_p50_ms": options.p50_ms,
            "options_p99_ms": options.p99_ms,
            "options_non_2xx": options.non_2xx,
            "socket_errors": options.socket_errors,
            **ceiling,
        }
        log(
            f"run {number + 1}: purchase-options {options.rps:,.0f}/s, "
            f"/health {run['health_per_second']:,.0f}/s"
        )
        runs.append(run)
    return {"runs": runs, "median": medians(runs), "ok": all(run["options_non_2xx"] == 0 for run in runs)}


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    m = result["median"]
    rows = [
        ("GET /cabinet/subscription/purchase-options/s", f"{m['options_per_second']:,.0f}"),
        ("purchase-options p50 / p99", f"{m['options_p50_ms']:.1f} / {m['options_p99_ms']:.1f} ms"),
    ]
    settings = f", {args.users:,} users, {args.tariffs} tariffs"
    return measures_table(args, settings, m, rows, ("every answer 200", result["ok"]))


def benchmark(args: argparse.Namespace, workdir: Path) -> int:
    env = {
        "WEB_API_DEFAULT_TOKEN": secrets.token_urlsafe(32),
        "CABINET_JWT_SECRET": JWT_SECRET,
        "SALES_MODE": "tariffs",
    }
    with service(args, workdir, env) as svc:
        ids = asyncio.run(seed(svc.database_url, args.users, args.tariffs))
        if len(ids) < args.users:
            raise BenchError(f"seeded {len(ids)} users, wanted {args.users}")
        result = measure(args, svc, ids, workdir)
    return report(args, result, render(result, args))


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--users", type=int, default=100_000, help="users seeded (default 100000)")
    p.add_argument("--tariffs", type=int, default=20, help="active tariffs seeded (default 20)")
    p.add_argument("--buyers", type=int, default=1_000, help="distinct buyers asking (default 1000)")


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, benchmark, "subsvc-bench-sales-")


if __name__ == "__main__":
    sys.exit(main())
