"""Events published per second, and webhook deliveries per second to a loopback receiver.

Starts `subsvc serve` (pinned to CPU 0) on a fresh database, a loopback receiver and the
load generator in this process (pinned to CPU 1), creates ``--webhooks`` webhooks for every
event (``*``) aimed at the receiver, then for ``--duration`` seconds keeps ``--connections``
requests of ``POST /users`` in flight (each publishes one ``user.created`` event, so each
writes ``--webhooks`` pending deliveries in its transaction). It reports:

- events/s: completed ``POST /users`` per second while deliveries run alongside;
- deliveries/s: deliveries received per second from the first request until the last
  delivery, and the rate at which the backlog left at the end of publishing drained;
- that every delivery arrived exactly once and ``GET /webhooks/stats`` agrees.

Usage: python bench/webhooks.py [--duration 10] [--connections 16] [--webhooks 1]
Quick check of the harness: python bench/webhooks.py --duration 2 --connections 4
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx2
import uvicorn
from run import (
    HOST,
    BenchError,
    Pinning,
    add_service_options,
    free_port,
    log,
    pinning,
    server,
    service_command,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

TIMEOUT = 30.0  # seconds a request may take before it counts as failed


class Receiver:
    """Counts deliveries by ``X-Webhook-Delivery`` and notes when the last one came."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.keys: Counter[str] = Counter()
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.expected: int | None = None
        self.all_in = asyncio.Event()

    async def handle(self, request: Request) -> Response:
        await request.body()
        if self.delay:
            await asyncio.sleep(self.delay)
        now = time.monotonic()
        self.first_at = self.first_at or now
        self.last_at = now
        self.keys[request.headers.get("x-webhook-delivery", "")] += 1
        if self.expected is not None and self.count >= self.expected:
            self.all_in.set()
        return Response(status_code=204)

    @property
    def count(self) -> int:
        return sum(self.keys.values())

    async def received(self, count: int, seconds: float) -> None:
        """Wait (up to ``seconds``) until ``count`` deliveries have come in all."""
        self.expected = count
        self.all_in.clear()
        if self.count >= count:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.all_in.wait(), timeout=seconds)

    def restart(self) -> None:
        self.keys.clear()
        self.first_at = self.last_at = self.expected = None


async def publish(
    base: str, token: str, seconds: float, connections: int
) -> tuple[int, int, float, list[float]]:
    """Keep ``connections`` POST /users in flight for ``seconds``:
    (created, failed, elapsed, each request's seconds)."""
    created = failed = 0
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    limits = httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)
    headers = {"X-API-Key": token}
    async with httpx2.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=TIMEOUT) as client:
        started = time.monotonic()
        deadline = started + seconds

        async def worker(number: int) -> None:
            nonlocal created, failed
            sequence = 0
            while time.monotonic() < deadline:
                sequence += 1
                sent = time.monotonic()
                try:
                    r = await client.post("/users", json={"first_name": f"Bench {number}-{sequence}"})
                except httpx2.TimeoutException as exc:
                    failed += 1
                    errors[f"timeout ({type(exc).__name__})"] += 1
                    continue
                finally:
                    latencies.append(time.monotonic() - sent)
                if r.status_code == 201:
                    created += 1
                else:
                    failed += 1
                    errors[f"{r.status_code} {r.text[:200]}"] += 1

        await asyncio.gather(*(worker(n) for n in range(connections)))
        for text, count in errors.most_common(5):
            log(f"POST /users failed {count}x: {text}")
        return created, failed, time.monotonic() - started, latencies


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(args: argparse.Namespace, port: int, token: str, receiver: Receiver, hook_url: str) -> dict:
    base = f"http://{HOST}:{port}"
    async with httpx2.AsyncClient(base_url=base, headers={"X-API-Key": token}, timeout=TIMEOUT) as client:
        for number in range(args.webhooks):
            body = {"name": f"bench {number}", "url": hook_url, "event_type": "*"}
            r = await client.post("/webhooks", json=body)
            if r.status_code != 201:
                raise BenchError(f"POST /webhooks answered {r.status_code}: {r.text}")
        r = await client.post("/users", json={"first_name": "Warm-up"})  # creates the default group
        if r.status_code != 201:
            raise BenchError(f"POST /users answered {r.status_code}: {r.text}")
        warm_up = args.webhooks
        await receiver.received(warm_up, 30)  # its deliveries, before measuring
        receiver.restart()
        started = time.monotonic()
        created, failed, elapsed, latencies = await publish(base, token, args.duration, args.connections)
        at_end, ended = receiver.count, time.monotonic()
        expected = created * args.webhooks
        await receiver.received(expected, args.drain_timeout)
        for _ in range(100):  # outcomes are recorded in batches just after they arrive
            stats = (await client.get("/webhooks/stats")).json()
            if stats["successful_deliveries"] + stats["failed_deliveries"] >= receiver.count + warm_up:
                break
            await asyncio.sleep(0.05)
    last = receiver.last_at or ended
    result = {
        "events": created,
        "event_errors": failed,
        "events_per_second": created / elapsed,
        "event_p50_ms": percentile(latencies, 0.50) * 1000,
        "event_p99_ms": percentile(latencies, 0.99) * 1000,
        "event_max_ms": max(latencies, default=0.0) * 1000,
        "deliveries_expected": expected,
        "deliveries_received": receiver.count,
        "duplicates": sum(n - 1 for n in receiver.keys.values() if n > 1),
        "deliveries_per_second": receiver.count / (last - started) if receiver.count else 0.0,
        "backlog_at_end_of_publishing": expected - at_end,
        "backlog_drain_per_second": (receiver.count - at_end) / (last - ended) if last > ended else None,
        "seconds_to_last_delivery_after_publishing": max(0.0, last - ended),
        "stats": stats,
        "warm_up_deliveries": warm_up,
    }
    result["ok"] = (
        failed == 0
        and receiver.count == expected
        and stats.get("successful_deliveries") == expected + warm_up
        and stats.get("failed_deliveries") == 0
    )
    return result


async def run(args: argparse.Namespace, workdir: Path, pin: Pinning) -> dict:
    receiver = Receiver(args.receiver_ms / 1000)
    receiver_port = free_port()
    app = Starlette(routes=[Route("/hook", receiver.handle, methods=["POST"])])
    hook_server = uvicorn.Server(
        uvicorn.Config(app, host=HOST, port=receiver_port, log_level="warning", access_log=False)
    )
    serving = asyncio.create_task(hook_server.serve())
    while not hook_server.started:
        if serving.done():
            serving.result()
        await asyncio.sleep(0.01)
    token = secrets.token_urlsafe(32)
    port = free_port()
    env = {
        **os.environ,
        "HOST": HOST,
        "PORT": str(port),
        "DATABASE_URL": args.database_url or f"sqlite+aiosqlite:///{workdir}/bench.db",
        "WEB_API_DEFAULT_TOKEN": token,
        "WEBHOOK_BLOCK_PRIVATE_TARGETS": "false",  # the receiver is on the loopback
        "LOG_LEVEL": "WARNING",
    }
    env.update(dict(kv.split("=", 1) for kv in args.env))
    cmd = [*pin.server, *service_command(args)]
    try:
        with server(cmd, env, port, workdir / "server.log", "/health", 60.0):
            result = await measure(args, port, token, receiver, f"http://{HOST}:{receiver_port}/hook")
        errors = [line for line in (workdir / "server.log").read_text().splitlines() if "ERROR" in line]
        for line in errors[:5]:
            log(f"server: {line}")
        return result
    finally:
        hook_server.should_exit = True
        await serving


def render(result: dict, args: argparse.Namespace) -> str:
    r, drain = result, result["backlog_drain_per_second"]
    rows = [
        ("events published", f"{r['events']:,} in {args.duration:g} s ({r['event_errors']} errors)"),
        ("events/s (POST /users, deliveries running)", f"{r['events_per_second']:,.0f}"),
        (
            "POST /users p50 / p99 / max",
            f"{r['event_p50_ms']:.0f} / {r['event_p99_ms']:.0f} / {r['event_max_ms']:.0f} ms",
        ),
        ("deliveries received / expected", f"{r['deliveries_received']:,} / {r['deliveries_expected']:,}"),
        ("duplicates", str(r["duplicates"])),
        ("deliveries/s (first request to last delivery)", f"{r['deliveries_per_second']:,.0f}"),
        ("backlog when publishing stopped", f"{r['backlog_at_end_of_publishing']:,}"),
        ("backlog drained per second", "-" if drain is None else f"{drain:,.0f}"),
        ("last delivery after publishing stopped", f"{r['seconds_to_last_delivery_after_publishing']:.2f} s"),
    ]
    lines = ["| measure | value |", "|---|---:|", *(f"| {name} | {value} |" for name, value in rows)]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=10.0, help="seconds of publishing (default 10)")
    p.add_argument("--connections", type=int, default=16, help="requests in flight (default 16)")
    p.add_argument("--webhooks", type=int, default=1, help="webhooks for '*' (0: events only; default 1)")
    p.add_argument("--receiver-ms", type=float, default=0.0, help="receiver's delay per delivery, ms")
    p.add_argument("--drain-timeout", type=float, default=120.0, help="seconds to wait for the backlog")
    add_service_options(p)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pin = pinning(args)  # decided before this process pins itself to one CPU
    if pin.wrk:  # this process generates the load and receives: pin it like wrk
        os.sched_setaffinity(0, {args.wrk_cpu})
    try:
        with tempfile.TemporaryDirectory(prefix="subsvc-bench-webhooks-") as folder:
            result = asyncio.run(run(args, Path(folder), pin))
    except BenchError as exc:
        log(f"error: {exc}")
        return 2
    print(render(result, args))
    if args.json:
        Path(args.json).write_text(json.dumps({"settings": vars(args), "result": result}, indent=2))
    if not result["ok"]:
        log(f"not every delivery arrived exactly once: {json.dumps(result['stats'])}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
