"""A campaign's statistics over many registrations: ``GET
/cabinet/admin/campaigns/{id}/stats`` (registrations, bonuses, revenue, first payments,
trials, conversion), ``GET /cabinet/admin/campaigns`` (the list's counts and revenue) and
``GET /cabinet/admin/campaigns/{id}/chart-data``.

Starts `subsvc serve` (pinned to CPU 0), then writes ``--registrations`` users (default
1,000,000) registered in one campaign over 60 days, and one gateway deposit for every tenth
of them, straight into the database (the registrations and deposits by ``INSERT ...
SELECT``), then the campaigns' running totals from them (the migration's backfill). wrk
(pinned to CPU 1) sends each request with the administrator's access JWT over
``--connections`` keep-alive connections for ``--duration`` seconds; medians over ``--runs``.
After the runs it checks the answers: registrations, revenue and paying users equal what was
written.

Usage: python bench/campaign_stats.py [--runs 3] [--duration 10] [--connections 1]
Quick check of the harness: python bench/campaign_stats.py --runs 1 --duration 2 --registrations 20000
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
from seed import batches, insert_admin, insert_ids, unpooled
from sqlalchemy import insert, text
from subsvc_campaigns.models import Campaign
from subsvc_campaigns.totals import backfill
from subsvc_users.api import User

STAMP = secrets.randbelow(10**6)
MESSENGER_IDS = 8_000_000_000 + STAMP * 10_000_000
ADMIN_MESSENGER_ID = MESSENGER_IDS - 1
BATCH = 10_000
DEPOSIT = 25_000  # kopeks, every tenth user


async def seed(url: str, registrations: int) -> tuple[int, int, int]:
    """The administrator, the users, the campaign, its registrations and the deposits.
    Returns the administrator's id, the campaign's id and the paying users."""
    now = datetime.now(UTC)
    users = User.__table__
    async with unpooled(url) as engine:
        async with engine.begin() as connection:
            admin_id = await insert_admin(connection, ADMIN_MESSENGER_ID, now)
            campaign = Campaign(
                name="Bench", start_parameter=f"bench{STAMP}", bonus_type="balance", balance_bonus_kopeks=1000
            )
            (campaign_id,) = await insert_ids(connection, [campaign])
        for numbers in batches(registrations, BATCH):
            rows = [
                User(
                    messenger_id=MESSENGER_IDS + n,
                    first_name=f"Visitor {n}",
                    created_at=now - timedelta(minutes=(registrations - n) * 86_400 // registrations),
                    updated_at=now,
                ).model_dump(exclude={"id"})
                for n in numbers
            ]
            async with engine.begin() as connection:
                await connection.execute(insert(users), rows)
            if numbers.start % 100_000 == 0:
                log(f"  {numbers.stop:,} users")
        bounds = {"lo": MESSENGER_IDS, "hi": MESSENGER_IDS + registrations, "campaign": campaign_id}
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO advertising_campaign_registrations"
                    " (campaign_id, user_id, bonus_type, balance_bonus_kopeks, created_at)"
                    " SELECT :campaign, id, 'balance', 1000, created_at FROM users"
                    " WHERE messenger_id >= :lo AND messenger_id < :hi"
                ),
                bounds,
            )
            paid = await connection.execute(
                text(
                    "INSERT INTO transactions (user_id, type, amount_kopeks, payment_method, external_id,"
                    " is_completed, created_at)"
                    " SELECT id, 'deposit', :amount, 'yookassa', 'bench-' || id, true, created_at FROM users"
                    " WHERE messenger_id >= :lo AND messenger_id < :hi AND (messenger_id - :lo) % 10 = 0"
                ),
                {**bounds, "amount": DEPOSIT},
            )
            paying = paid.rowcount
            await connection.run_sync(backfill)  # the counters, as the migration computes them
            if connection.dialect.name == "postgresql":
                await connection.execute(
                    text(
                        "ANALYZE users, advertising_campaign_registrations, transactions,"
                        " campaign_totals, campaign_days, campaign_payments"
                    )
                )
        return admin_id, campaign_id, paying


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    log(f"seeding {args.registrations:,} registrations and their deposits")
    admin_id, campaign_id, paying = asyncio.run(seed(svc.database_url, args.registrations))
    token = cabinet_access_token(admin_id)
    paths = {
        "stats": f"/cabinet/admin/campaigns/{campaign_id}/stats",
        "list": "/cabinet/admin/campaigns",
        "chart": f"/cabinet/admin/campaigns/{campaign_id}/chart-data",
    }
    runs = measure_gets(args, svc, workdir, paths, [token])
    stats = json_answer(svc, paths["stats"], token)
    checks = {
        "registrations": stats["registrations"] == args.registrations,
        "revenue": stats["total_revenue_kopeks"] == paying * DEPOSIT,
        "paying": stats["paid_users_count"] == paying,
    }
    return checked_result(runs, paths, checks)


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    labels = {
        "stats": "GET .../campaigns/{id}/stats",
        "list": "GET /cabinet/admin/campaigns",
        "chart": "GET .../campaigns/{id}/chart-data",
    }
    return gets_table(
        args, result, labels, f", {args.registrations:,} registrations", "registrations and revenue exact"
    )


ENV = admin_env(ADMIN_MESSENGER_ID)


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--registrations", type=int, default=1_000_000, help="registrations in the campaign (default 1000000)"
    )


def main(argv: list[str] | None = None) -> int:
    return load_main(__doc__, argv, own_options, ENV, measure, render)


if __name__ == "__main__":
    sys.exit(main())
