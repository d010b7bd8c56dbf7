"""A/B benchmark: another revision and the working tree served at the same time.

On a shared host a CPU's speed drifts, by a third within minutes on some days (bench/README.md),
more than most changes are worth, so runs of two revisions one after the other do not compare.
Here the base revision (a git worktree, its packages first on PYTHONPATH) and the working tree
run side by side, both pinned to one CPU and each driven by its own wrk on another: both see
the same host speed, and the ratio of their throughputs, and of their CPU time per request
(read from /proc), tells the change apart from the drift.

Usage: python bench/ab.py --base REV --scenario "POST /users/{id}/balance"
           --scenarios users --database-url URL [--rounds 3] [--duration 15]
"""

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from run import (
    HOST,
    BenchError,
    Pinning,
    RunResult,
    ensure_wrk,
    free_port,
    in_scratch_folder,
    log,
    pinning,
    run_wrk,
    server,
    service_command,
    write_wrk_script,
)
from scenarios import SCENARIO_SETS, Scenario, SeedContext

REPOSITORY = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def python_path(tree: Path) -> str:
    """The tree's core and plugin packages, ahead of the installed (editable) ones."""
    return os.pathsep.join([str(tree / "core"), *(str(p) for p in sorted((tree / "plugins").iterdir()))])


@contextlib.contextmanager
def worktree(revision: str, directory: Path) -> Iterator[Path]:
    """A checkout of ``revision`` for the time of the run."""
    path = directory / "base"
    subprocess.run(
        ["git", "-C", str(REPOSITORY), "worktree", "add", "-q", "--detach", str(path), revision], check=True
    )
    try:
        yield path
    finally:
        subprocess.run(
            ["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(path)], check=False
        )


@dataclass
class Side:
    """One of the two servers: its name, process, port and wrk script."""

    name: str
    pid: int
    port: int
    script: Path


@dataclass
class Round:
    """Both sides measured at the same time: wrk's figures and CPU seconds per request."""

    results: dict[str, RunResult]
    cpu_per_request: dict[str, float]


def measure_round(
    args: argparse.Namespace, pin: Pinning, sides: Sequence[Side], scenario: Scenario, seconds: float
) -> Round:
    """Drive both servers at once for ``seconds``."""
    before = {side.name: cpu_seconds(side.pid) for side in sides}
    with ThreadPoolExecutor(len(sides)) as pool:
        futures = {
            side.name: pool.submit(
                run_wrk, args, pin, f"http://{HOST}:{side.port}{scenario.first_path}", side.script, seconds
            )
            for side in sides
        }
        results = {name: future.result() for name, future in futures.items()}
    spent = {side.name: cpu_seconds(side.pid) - before[side.name] for side in sides}
    return Round(results, {name: spent[name] / max(results[name].requests, 1) for name in results})


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="git revision to compare the working tree with")
    p.add_argument("--scenarios", choices=sorted(SCENARIO_SETS), default="users", help="scenario set (users)")
    p.add_argument("--scenario", required=True, help="name of the scenario in the set")
    p.add_argument("--database-url", help="DATABASE_URL for both servers (default: temp SQLite)")
    p.add_argument("--rounds", type=int, default=3, help="measured rounds (3)")
    p.add_argument("--duration", type=float, default=15, help="seconds per round (15)")
    p.add_argument("--warmup", type=float, default=3, help="discarded warm-up seconds (3)")
    p.add_argument("--connections", type=int, default=16, help="wrk -c per server (16)")
    p.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help="extra service environment"
    )
    p.add_argument("--token", default="bench-ab-" + "t" * 24, help="WEB_API_DEFAULT_TOKEN")
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--server-cpu", type=int, default=0)
    p.add_argument("--wrk-cpu", type=int, default=1)
    args = p.parse_args(argv)
    args.threads, args.no_pin, args.server_cmd, args.wrk_timeout = 1, False, None, 2.0
    return args


def benchmark(args: argparse.Namespace, workdir: Path) -> int:
    scenario_set = SCENARIO_SETS[args.scenarios]
    scenario: Scenario | None = next((s for s in scenario_set.scenarios if s.name == args.scenario), None)
    if scenario is None:
        raise BenchError(f"no scenario {args.scenario!r} in {args.scenarios}")
    args.wrk = ensure_wrk()
    pin = pinning(args)
    env = {
        **os.environ,
        "HOST": HOST,
        "DATABASE_URL": args.database_url or f"sqlite+aiosqlite:///{workdir / 'subsvc.db'}",
        "WEB_API_DEFAULT_TOKEN": args.token,
        **scenario_set.env,
        **dict(kv.split("=", 1) for kv in args.env),
    }
    command = service_command(args)
    if scenario_set.seed:
        scenario_set.seed(SeedContext(env, workdir, tuple(command)))
    with worktree(args.base, workdir) as base, contextlib.ExitStack() as servers:
        sides = []
        for name, tree in (("base", base), ("head", REPOSITORY)):
            port = free_port()
            side_env = {**env, "PORT": str(port), "PYTHONPATH": python_path(tree)}
            cmd = [*pin.server, sys.executable, "-m", "subsvc", "serve"]
            proc = servers.enter_context(
                server(cmd, side_env, port, workdir / f"{name}.log", "/health", args.startup_timeout)
            )
            sides.append(Side(name, proc.pid, port, write_wrk_script(scenario, args.token, workdir)))
        if args.warmup > 0:
            measure_round(args, pin, sides, scenario, args.warmup)
        rounds = []
        for number in range(1, args.rounds + 1):
            found = measure_round(args, pin, sides, scenario, args.duration)
            rounds.append(found)
            rps = {name: f"{result.rps:,.0f} req/s" for name, result in found.results.items()}
            cpu_ms = {name: f"{1000 * value:.2f} ms" for name, value in found.cpu_per_request.items()}
            log(
                f"round {number}: base {rps['base']}, head {rps['head']};"
                f" CPU per request base {cpu_ms['base']}, head {cpu_ms['head']}"
            )
    problems = [
        f"{name}: {r.non_2xx} non-2xx" for found in rounds for name, r in found.results.items() if r.non_2xx
    ]
    throughput = statistics.median(f.results["head"].rps / f.results["base"].rps for f in rounds)
    cpu = statistics.median(f.cpu_per_request["head"] / f.cpu_per_request["base"] for f in rounds)
    print(
        f"{scenario.name}: head/base over {args.rounds} rounds of {args.duration:g} s (medians):"
        f" throughput ×{throughput:.3f}, CPU per request ×{cpu:.3f}"
    )
    for name in ("base", "head"):
        p50 = statistics.median(f.results[name].p50_ms for f in rounds)
        p99 = statistics.median(f.results[name].p99_ms for f in rounds)
        worst = max(f.results[name].p99_ms for f in rounds)
        print(f"  {name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms (median; highest round {worst:.2f} ms)")
    for problem in problems:
        print(f"(!) {problem}")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return in_scratch_folder("subsvc-ab-", lambda folder: benchmark(args, folder))


if __name__ == "__main__":
    sys.exit(main())
