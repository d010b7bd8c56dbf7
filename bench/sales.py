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
    cabinet_env,
    checked_result,
    gets_table,
    load_main,
    measure_gets,
    spread,
)
from scenarios import cabinet_access_token
from seed import transaction
from sqlalchemy import func, insert, select
from subsvc_subscriptions.api import Subscription
from subsvc_tariffs.api import Tariff
from subsvc_users.api import User

PATH = "/cabinet/subscription/purchase-options"
FIRST_MESSENGER_ID = 5_000_000_000


async def seed(url: str, users: int, tariffs: int) -> list[int]:
    """The users, tariffs and subscriptions (kept when a database of an earlier run has them);
    returns the user ids."""
    now = datetime.now(UTC)
    async with transaction(url) as connection:
        have = await connection.scalar(select(func.count()).select_from(User)) or 0
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


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    ids = asyncio.run(seed(svc.database_url, args.users, args.tariffs))
    if len(ids) < args.users:
        raise BenchError(f"seeded {len(ids)} users, wanted {args.users}")
    tokens = [cabinet_access_token(user_id) for user_id in spread(ids, args.buyers)]
    runs = measure_gets(args, svc, workdir, {"options": PATH}, tokens)
    return checked_result(runs, ["options"], {})


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    labels = {"options": "GET /cabinet/subscription/purchase-options"}
    settings = f", {args.users:,} users, {args.tariffs} tariffs"
    return gets_table(args, result, labels, settings, "every answer 200", rate=",.0f")


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--users", type=int, default=100_000, help="users seeded (default 100000)")
    p.add_argument("--tariffs", type=int, default=20, help="active tariffs seeded (default 20)")
    p.add_argument("--buyers", type=int, default=1_000, help="distinct buyers asking (default 1000)")


ENV = cabinet_env(WEB_API_DEFAULT_TOKEN=secrets.token_urlsafe(32), SALES_MODE="tariffs")


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, ENV, measure, render)


if __name__ == "__main__":
    sys.exit(main())
