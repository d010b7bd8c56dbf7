"""Payment notifications processed per second: CryptoBot's signed ``invoice_paid`` updates
(signature check + crediting), beside ``GET /health`` in the same run.

Starts `subsvc serve` (pinned to CPU 0) with the CryptoBot provider configured, makes
``--users`` users and, for every run, ``--payments`` pending CryptoBot payments spread over
them (rows written straight into the payments table, as top-ups would leave them). wrk (pinned
to CPU 1) then posts each payment's ``invoice_paid`` update — its own body, signed as Crypto Pay
signs it (hex HMAC-SHA256 of the body keyed with SHA-256 of the API token) — over
``--connections`` keep-alive connections for ``--duration`` seconds. Each answered update is
verified, read, and credited once in its own transaction (row lock, amount check, deposit
transaction, events). A run that sends every update before its time is up goes on with
repeats (answered 200, credited nothing); only first deliveries count as credited.

For every run it reports notifications/s (credited payments per second of load), the updates
answered per second with their p50/p99 latency, and ``GET /health`` with the same wrk settings
as the ceiling of the server and the load generator on this host; medians over ``--runs``.
It checks, after each run, that every credited payment has exactly one deposit and that the
balances rose by exactly the credited amounts.

Usage: python bench/payments.py [--runs 3] [--duration 10] [--connections 16] [--payments 20000]
Quick check of the harness: python bench/payments.py --runs 1 --duration 2 --payments 500 --users 50
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import secrets
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
from run import (
    BenchError,
    RunResult,
    Service,
    load_main,
    lua_string,
    measure_writes,
    measures_table,
    wrk_rows,
)
from seed import transaction
from sqlalchemy import func, insert, select
from subsvc_billing.api import Transaction
from subsvc_payments.api import Payment
from subsvc_users.api import User

CRYPTOBOT_TOKEN = "bench:" + secrets.token_hex(16)
API_TOKEN = secrets.token_urlsafe(32)
PATH = "/webhooks/payments/cryptobot"
AMOUNT_KOPEKS = 15_000
# This invocation's own ids, so a database kept from an earlier run (PostgreSQL) takes new rows.
STAMP = secrets.randbelow(10**6)
MESSENGER_IDS = 7_000_000_000 + STAMP * 100_000
INVOICE_IDS = STAMP * 10**9


def signature(body: bytes) -> str:
    """Crypto Pay's signature of a body (its protocol, not our code)."""
    return hmac.new(hashlib.sha256(CRYPTOBOT_TOKEN.encode()).digest(), body, hashlib.sha256).hexdigest()


def update(invoice_id: int, amount_kopeks: int, update_id: int) -> bytes:
    """The ``invoice_paid`` update Crypto Pay sends for a paid fiat invoice."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    invoice = {
        "invoice_id": invoice_id,
        "hash": f"IV{invoice_id}",
        "currency_type": "fiat",
        "fiat": "RUB",
        "amount": f"{amount_kopeks // 100}.{amount_kopeks % 100:02d}",
        "status": "paid",
        "paid_asset": "USDT",
        "paid_amount": "1.63",
        "paid_fiat_rate": "92.02",
        "paid_at": now,
        "created_at": now,
        "payload": str(invoice_id),
    }
    body = {"update_id": update_id, "update_type": "invoice_paid", "request_date": now, "payload": invoice}
    return json.dumps(body, separators=(",", ":")).encode()


def wrk_script(first_invoice: int, count: int, directory: Path) -> Path:
    """A wrk script posting each payment's signed update once, in order, then again."""
    rows = []
    for n in range(count):
        body = update(first_invoice + n, AMOUNT_KOPEKS, first_invoice + n)
        rows.append("{" + lua_string(body.decode()) + ", " + lua_string(signature(body)) + "}")
    lines = [
        'wrk.method = "POST"',
        'wrk.headers["Content-Type"] = "application/json"',
        "updates = {" + ",\n".join(rows) + "}",
        "sent = 0",
        "request = function()",
        "  local u = updates[(sent % #updates) + 1]",
        "  sent = sent + 1",
        '  wrk.headers["Crypto-Pay-API-Signature"] = u[2]',
        f"  return wrk.format(nil, {lua_string(PATH)}, nil, u[1])",
        "end",
    ]
    path = directory / f"updates-{first_invoice}.lua"
    path.write_text("\n".join(lines) + "\n")
    return path


async def make_users(base: str, count: int) -> list[int]:
    """``count`` users through ``POST /users``: their ids."""
    async with httpx2.AsyncClient(base_url=base, headers={"X-API-Key": API_TOKEN}, timeout=30) as http:
        ids = []
        for n in range(count):
            body = {"messenger_id": MESSENGER_IDS + n, "first_name": f"Payer {n}"}
            r = await http.post("/users", json=body)
            if r.status_code != 201:
                raise BenchError(f"POST /users answered {r.status_code}: {r.text}")
            ids.append(r.json()["id"])
        return ids


async def seed_payments(url: str, users: list[int], first_invoice: int, count: int) -> None:
    """``count`` pending CryptoBot payments (invoice ids from ``first_invoice``), spread over
    the users, as top-ups leave them once Crypto Pay has answered."""
    now = datetime.now(UTC)
    rows = [
        {
            "user_id": users[n % len(users)],
            "provider": "cryptobot",
            "method": "cryptobot",
            "provider_payment_id": str(first_invoice + n),
            "amount_kopeks": AMOUNT_KOPEKS,
            "currency": "RUB",
            "status": "pending",
            "created_at": now,
            "updated_at": now,
            "expires_at": now + timedelta(hours=1),
            "flagged_late": False,
            "data": {"payment_url": f"https://t.me/CryptoBot?start=IV{first_invoice + n}"},
        }
        for n in range(count)
    ]
    async with transaction(url) as connection:
        for start in range(0, len(rows), 1000):
            await connection.execute(insert(Payment.__table__), rows[start : start + 1000])


async def ledger(url: str) -> dict[str, int]:
    """What the database says: payments credited, CryptoBot deposits, balances' sum."""
    async with transaction(url) as connection:
        credited = await connection.scalar(
            select(func.count()).select_from(Payment).where(Payment.status == "succeeded")
        )
        deposits = await connection.scalar(
            select(func.count()).select_from(Transaction).where(Transaction.payment_method == "cryptobot")
        )
        balances = await connection.scalar(select(func.coalesce(func.sum(User.balance_kopeks), 0)))
        linked = await connection.scalar(
            select(func.count(func.distinct(Payment.transaction_id))).where(Payment.status == "succeeded")
        )
    return {
        "credited": credited or 0,
        "deposits": deposits or 0,
        "balances": int(balances or 0),
        "linked": linked or 0,
    }


def judged(notified: RunResult, before: dict[str, int], after: dict[str, int]) -> tuple[int, bool]:
    """Payments credited in a run, and whether each was credited once: its own deposit, its own
    linked transaction, the balances risen by exactly the credited amounts, every update 2xx."""
    credited = after["credited"] - before["credited"]
    exact = (
        after["deposits"] - before["deposits"] == credited
        and after["linked"] == after["credited"]
        and after["balances"] - before["balances"] == credited * AMOUNT_KOPEKS
        and notified.non_2xx == 0
    )
    return credited, exact


def measure(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, Any]:
    url = svc.database_url
    users = asyncio.run(make_users(svc.base, args.users))

    def fresh_payments(number: int) -> Path:
        first = INVOICE_IDS + number * 10**7
        asyncio.run(seed_payments(url, users, first, args.payments))
        return wrk_script(first, args.payments, workdir)

    return measure_writes(args, svc, workdir, "updates", PATH, fresh_payments, lambda: ledger(url), judged)


def render(result: dict[str, Any], args: argparse.Namespace) -> str:
    m = result["median"]
    rows = [
        (
            "notifications credited/s (signature + credit, distinct payments)",
            f"{m['writes_per_second']:,.0f}",
        ),
        *wrk_rows(m, {"updates": "updates answered, repeats included"}, ",.0f"),
    ]
    return measures_table(args, "", m, rows, ("each credited once, balances exact", result["ok"]))


ENV = {
    "WEB_API_DEFAULT_TOKEN": API_TOKEN,
    "CRYPTOBOT_API_TOKEN": CRYPTOBOT_TOKEN,
    "CRYPTOBOT_API_URL": "http://127.0.0.1:9/api",  # never called: updates carry the invoice
    "PAYMENTS_POLL_INTERVAL_SECONDS": "0",
    "PAYMENTS_EXPIRE_INTERVAL_SECONDS": "0",
}


def own_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--payments", type=int, default=20_000, help="pending payments per run (default 20000)")
    p.add_argument("--users", type=int, default=1_000, help="users the payments belong to (default 1000)")


def main(argv: list[str] | None = None) -> int:
    return load_main(
        __doc__, argv, own_options, ENV, measure, render, "runs, each with fresh payments (default 3)"
    )


if __name__ == "__main__":
    sys.exit(main())
