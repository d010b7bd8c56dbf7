"""HTTP benchmark harness: wrk against subsvc, relative to a bare Starlette app.

Starts the baseline app (the ceiling) and then the service, each pinned to
CPU 0, drives them with wrk pinned to CPU 1, repeats every scenario several
times and prints the medians as a Markdown table.

Usage: python bench/run.py [--runs 5] [--duration 10] [--scenarios core]
"""

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import platform
import re
import secrets
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from scenarios import API_KEY_HEADER, CABINET_JWT_SECRET, SCENARIO_SETS, Scenario, SeedContext

HOST = "127.0.0.1"
BENCH_DIR = Path(__file__).resolve().parent
BASELINE_APP = BENCH_DIR / "baseline_app.py"
BASELINE_SCENARIO = Scenario("baseline GET / (ceiling)", "GET", "/")
TIME_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}
PERCENTILE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)%\s+([\d.]+)(us|ms|s|m|h)\s*$", re.MULTILINE)
RPS_RE = re.compile(r"^Requests/sec:\s+([\d.]+)", re.MULTILINE)
TOTAL_RE = re.compile(r"^\s*(\d+) requests in", re.MULTILINE)
T = TypeVar("T")
NON2XX_RE = re.compile(r"Non-2xx or 3xx responses:\s+(\d+)")
SOCKET_RE = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")


class BenchError(Exception):
    """A failure that aborts the benchmark with a readable message."""


@dataclass
class RunResult:
    """Figures parsed from one wrk run."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    socket_errors: int


@dataclass
class ScenarioResult:
    """All runs of one scenario, their medians and any problems seen."""

    scenario: str
    target: str
    method: str
    path: str
    runs: list[RunResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def median(self, metric: str) -> float:
        """Median of one RunResult attribute over the runs."""
        return float(statistics.median(getattr(r, metric) for r in self.runs))


@dataclass(frozen=True)
class Pinning:
    """CPU pinning via taskset; empty prefixes when disabled."""

    server: tuple[str, ...] = ()
    wrk: tuple[str, ...] = ()


# --------------------------------------------------------------------------- wrk


def ensure_wrk() -> str:
    """Return the wrk path, installing it with apt-get when root."""
    path = shutil.which("wrk")
    if path:
        return path
    hint = "wrk not found; install it with: apt-get update && apt-get install -y wrk"
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise BenchError(hint)
    log(f"{hint}\nrunning as root: installing wrk now")
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "wrk"]):
        subprocess.run(cmd, check=True, timeout=600, stdout=subprocess.DEVNULL)
    path = shutil.which("wrk")
    if not path:
        raise BenchError(hint)
    return path


def lua_string(value: str) -> str:
    """Quote a string as a Lua 5.1 literal, escaping other than printable ASCII as decimal."""
    out = []
    for byte in value.encode():
        char = chr(byte)
        if 32 <= byte < 127 and char not in '"\\':
            out.append(char)
        else:
            out.append(f"\\{byte:03d}")
    return '"' + "".join(out) + '"'


def request_headers(scenario: Scenario, token: str) -> dict[str, str]:
    """Headers for a scenario, with the API key and a JSON content type added."""
    headers = dict(scenario.headers)
    if scenario.auth:
        headers[API_KEY_HEADER] = token
    if scenario.body is not None and not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = "application/json"
    return headers


def write_wrk_script(scenario: Scenario, token: str, directory: Path) -> Path:
    """Write the wrk Lua script setting method, headers and body."""
    lines = [f"wrk.method = {lua_string(scenario.method)}"]
    for name, value in request_headers(scenario, token).items():
        lines.append(f"wrk.headers[{lua_string(name)}] = {lua_string(value)}")
    if scenario.body is not None:
        lines.append(f"wrk.body = {lua_string(scenario.body)}")
    if scenario.bodies:
        lines.append("bodies = {" + ", ".join(lua_string(body) for body in scenario.bodies) + "}")
        lines.append("sent = 0")
    if scenario.random_id is not None or scenario.bodies:
        lines += [
            f"math.randomseed({os.getpid()})",
            "request = function()",
            "  local path = nil",
            "  local body = nil",
        ]
        if scenario.random_id is not None:
            low, high = scenario.random_id
            lines += [
                f"  local id = tostring(math.random({low}, {high}))",
                f'  path = string.gsub({lua_string(scenario.path)}, "{{id}}", id)',
            ]
        if scenario.bodies:
            lines += ["  sent = sent + 1", "  body = bodies[(sent % #bodies) + 1]"]
        lines += ["  return wrk.format(nil, path, nil, body)", "end"]
    fd, name = tempfile.mkstemp(suffix=".lua", dir=directory)
    with os.fdopen(fd, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return Path(name)


def parse_wrk(output: str) -> RunResult:
    """Extract req/s, p50/p99 (ms) and error counts from `wrk --latency` output."""
    percentiles = {float(p): float(v) * TIME_UNITS_MS[unit] for p, v, unit in PERCENTILE_RE.findall(output)}
    rps = RPS_RE.search(output)
    total = TOTAL_RE.search(output)
    if rps is None or total is None or 50.0 not in percentiles or 99.0 not in percentiles:
        raise BenchError(f"cannot parse wrk output:\n{output}")
    non2xx = NON2XX_RE.search(output)
    sock = SOCKET_RE.search(output)
    return RunResult(
        rps=float(rps.group(1)),
        p50_ms=percentiles[50.0],
        p99_ms=percentiles[99.0],
        requests=int(total.group(1)),
        non_2xx=int(non2xx.group(1)) if non2xx else 0,
        socket_errors=sum(int(n) for n in sock.groups()) if sock else 0,
    )


def run_wrk(args: argparse.Namespace, pin: Pinning, url: str, script: Path, seconds: float) -> RunResult:
    """Run wrk once for `seconds` and parse its output."""
    return parse_wrk(wrk_output(args, pin, url, script, seconds))


def wrk_output(args: argparse.Namespace, pin: Pinning, url: str, script: Path, seconds: float) -> str:
    """Run wrk once for `seconds` and return what it printed (including what the script did)."""
    cmd = [
        *pin.wrk,
        args.wrk,
        "--latency",
        "-t",
        str(args.threads),
        "-c",
        str(args.connections),
        "-d",
        f"{seconds:g}s",
        "--timeout",
        f"{args.wrk_timeout:g}s",
        "-s",
        str(script),
        url,
    ]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=seconds + args.wrk_timeout + 30, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"wrk did not finish in time: {shlex.join(cmd)}") from exc
    if proc.returncode != 0:
        raise BenchError(f"wrk failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


# ------------------------------------------------------------------------ server


def free_port() -> int:
    """Ask the kernel for a free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def http_status(port: int, scenario: Scenario, token: str, timeout: float) -> int:
    """Send the scenario's request once and return the status code."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(
            scenario.method,
            scenario.first_path,
            body=scenario.body,
            headers=request_headers(scenario, token),
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server's process group: SIGTERM, SIGKILL after 10 s, reap."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # finish cleanup
    try:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):  # stragglers, if any
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def server(
    cmd: Sequence[str],
    env: Mapping[str, str],
    port: int,
    log_path: Path,
    ready_path: str,
    timeout: float,
) -> Iterator[subprocess.Popen[bytes]]:
    """Start a server in its own process group, wait until it answers, stop it."""
    log(f"starting: {shlex.join(cmd)}  (log: {log_path})")
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(
            list(cmd),
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        probe = Scenario("ready", "GET", ready_path)
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise BenchError(f"server exited with {proc.returncode}; log tail:\n{tail(log_path)}")
            with contextlib.suppress(OSError, http.client.HTTPException):
                http_status(port, probe, "", timeout=1.0)
                break
            if time.monotonic() > deadline:
                raise BenchError(f"server not answering after {timeout:g}s; log tail:\n{tail(log_path)}")
            time.sleep(0.1)
        yield proc
    finally:
        stop_group(proc)


def tail(path: Path, lines: int = 20) -> str:
    """Last lines of a log file."""
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


# --------------------------------------------------------------------- measuring


@dataclass
class Target:
    """A running server and the scenarios measured against it."""

    name: str
    proc: subprocess.Popen[bytes]
    port: int
    scenarios: Sequence[Scenario]


def measure(
    args: argparse.Namespace, pin: Pinning, targets: Sequence[Target], token: str, workdir: Path
) -> list[ScenarioResult]:
    """Check and warm up every scenario, then run wrk in rounds: each round measures every
    scenario of every target once, so a slow or fast spell of the machine touches the
    ceiling and the service alike. The medians over the rounds are reported."""
    plan: list[tuple[Target, Scenario, ScenarioResult, str, Path]] = []
    for target in targets:
        for sc in target.scenarios:
            res = ScenarioResult(sc.name, target.name, sc.method, sc.path)
            try:
                status = http_status(target.port, sc, token, timeout=10.0)
            except (OSError, http.client.HTTPException) as exc:
                raise BenchError(f"{target.name}: check request for {sc.name} failed: {exc!r}") from exc
            if status != sc.expect_status:
                res.problems.append(f"check request got {status}, expected {sc.expect_status}")
            script = write_wrk_script(sc, token, workdir)
            url = f"http://{HOST}:{target.port}{sc.first_path}"
            if args.warmup > 0:
                log(f"[{target.name}] {sc.name}: warm-up {args.warmup:g}s")
                run_wrk(args, pin, url, script, args.warmup)
            plan.append((target, sc, res, url, script))
    for i in range(args.runs):
        for target, sc, res, url, script in plan:
            run = run_wrk(args, pin, url, script, args.duration)
            log(
                f"[{target.name}] {sc.name}: round {i + 1}/{args.runs}: {run.rps:,.0f} req/s,"
                f" p50 {run.p50_ms:.2f} ms, p99 {run.p99_ms:.2f} ms"
            )
            res.runs.append(run)
            if target.proc.poll() is not None:
                raise BenchError(f"{target.name} server died during {sc.name}")
    results = []
    for _, _, res, _, _ in plan:
        non2xx = sum(r.non_2xx for r in res.runs)
        errors = sum(r.socket_errors for r in res.runs)
        if non2xx:
            res.problems.append(f"{non2xx} non-2xx/3xx responses")
        if errors:
            res.problems.append(f"{errors} socket errors")
        results.append(res)
    return results


def render_table(results: Sequence[ScenarioResult], ceiling: float) -> str:
    """Markdown table of medians, plus notes for scenarios with problems."""
    rows = [
        "| scenario | req/s (median) | p50 ms | p99 ms | % of ceiling |",
        "|---|---:|---:|---:|---:|",
    ]
    notes = []
    for res in results:
        rps = res.median("rps")
        mark = " (!)" if res.problems else ""
        pct = f"{100 * rps / ceiling:.1f}%" if ceiling else "n/a"
        rows.append(
            f"| {res.scenario}{mark} | {rps:,.0f} | {res.median('p50_ms'):.2f}"
            f" | {res.median('p99_ms'):.2f} | {pct} |"
        )
        notes += [f"- (!) {res.scenario}: {p}" for p in res.problems]
    return "\n".join(rows + (["", *notes] if notes else []))


# -------------------------------------------------------------------------- main


def log(message: str) -> None:
    """Progress output on stderr (the table goes to stdout)."""
    print(message, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="runs per scenario (5)")
    p.add_argument("--duration", type=float, default=10, help="seconds per run (10)")
    p.add_argument("--connections", type=int, default=32, help="wrk -c (32)")
    p.add_argument("--threads", type=int, default=1, help="wrk -t (1)")
    p.add_argument(
        "--wrk-timeout", type=float, default=2, help="seconds before wrk counts a request as a timeout (2)"
    )
    p.add_argument(
        "--warmup", type=float, default=2, help="discarded warm-up seconds per scenario, 0 = none (2)"
    )
    p.add_argument("--scenarios", choices=sorted(SCENARIO_SETS), default="core", help="scenario set (core)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write JSON here")
    p.add_argument("--server-cmd", help="service command (default: 'subsvc serve' from PATH)")
    p.add_argument("--database-url", help="DATABASE_URL for the service (default: temp SQLite)")
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra environment for the service (repeatable)",
    )
    p.add_argument(
        "--token",
        default=f"bench-{secrets.token_hex(16)}",
        help="WEB_API_DEFAULT_TOKEN / X-API-Key value (random)",
    )
    p.add_argument("--ready-path", default="/health", help="path polled until the service answers (/health)")
    p.add_argument(
        "--startup-timeout", type=float, default=60, help="seconds to wait for a server to answer (60)"
    )
    p.add_argument("--only-baseline", action="store_true", help="measure the baseline app only")
    p.add_argument("--no-pin", action="store_true", help="do not use taskset")
    p.add_argument("--server-cpu", type=int, default=0, help="server CPU (0)")
    p.add_argument("--wrk-cpu", type=int, default=1, help="wrk CPU (1)")
    args = p.parse_args(argv)
    if args.runs < 1 or args.duration <= 0 or not 1 <= args.threads <= args.connections:
        p.error("need runs >= 1, duration > 0 and connections >= threads >= 1")
    if any("=" not in kv for kv in args.env):
        p.error("--env takes KEY=VALUE")
    return args


def add_service_options(p: argparse.ArgumentParser) -> None:
    """The options of a benchmark that starts `subsvc serve` itself and pins it and its load
    generator: the database, the command, extra environment, JSON output, the CPUs."""
    p.add_argument("--database-url", help="use this database instead of a fresh SQLite file")
    p.add_argument("--server-cmd", help="service command (default: subsvc serve)")
    p.add_argument("--env", action="append", default=[], help="extra service environment KEY=VALUE")
    p.add_argument("--json", help="also write the result as JSON to this file")
    p.add_argument("--no-pin", action="store_true", help="do not pin processes to CPUs")
    p.add_argument("--server-cpu", type=int, default=0, help="server CPU (0)")
    p.add_argument("--wrk-cpu", type=int, default=1, help="CPU of the load generator (1)")


def pinning(args: argparse.Namespace) -> Pinning:
    """Return taskset prefixes for server and wrk (none if unavailable or disabled)."""
    if args.no_pin:
        return Pinning()
    taskset = shutil.which("taskset")
    cpus = os.sched_getaffinity(0)
    if not taskset or not {args.server_cpu, args.wrk_cpu} <= cpus:
        log(f"warning: not pinning (taskset={taskset}, usable CPUs={sorted(cpus)})")
        return Pinning()
    return Pinning(
        server=(taskset, "-c", str(args.server_cpu)),
        wrk=(taskset, "-c", str(args.wrk_cpu)),
    )


def service_command(args: argparse.Namespace) -> list[str]:
    """Return the service command: --server-cmd, or `subsvc serve` from PATH or the venv."""
    if args.server_cmd:
        return shlex.split(args.server_cmd)
    exe = shutil.which("subsvc") or shutil.which("subsvc", path=str(Path(sys.executable).parent))
    if not exe:
        raise BenchError(
            "`subsvc` not found: install the project (pip install -e .), "
            "pass --server-cmd, or use --only-baseline"
        )
    return [exe, "serve"]


def environment_info(wrk: str) -> dict[str, object]:
    """Versions and machine facts recorded in the JSON output."""
    out = subprocess.run([wrk, "--version"], capture_output=True, text=True, timeout=10, check=False).stdout
    return {
        "wrk": out.splitlines()[0] if out else "unknown",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def benchmark(args: argparse.Namespace, workdir: Path) -> int:
    """Measure the baseline, then the service, and report."""
    args.wrk = ensure_wrk()
    pin = pinning(args)
    scenario_set = SCENARIO_SETS[args.scenarios]
    service_cmd = [] if args.only_baseline else service_command(args)

    with contextlib.ExitStack() as servers:
        port = free_port()
        base_env = {**os.environ, "HOST": HOST, "PORT": str(port)}
        base_cmd = [*pin.server, sys.executable, str(BASELINE_APP)]
        proc = servers.enter_context(
            server(base_cmd, base_env, port, workdir / "baseline.log", "/", args.startup_timeout)
        )
        targets = [Target("baseline", proc, port, [BASELINE_SCENARIO])]
        db_url = args.database_url or f"sqlite+aiosqlite:///{workdir / 'subsvc.db'}"
        if not args.only_baseline:
            port = free_port()
            env = {
                **os.environ,
                "HOST": HOST,
                "PORT": str(port),
                "DATABASE_URL": db_url,
                "WEB_API_DEFAULT_TOKEN": args.token,
                **scenario_set.env,
                **dict(kv.split("=", 1) for kv in args.env),
            }
            if scenario_set.seed:
                log(f"seeding for scenario set {scenario_set.name!r}")
                scenario_set.seed(SeedContext(env, workdir, tuple(service_cmd)))
            cmd = [*pin.server, *service_cmd]
            proc = servers.enter_context(
                server(cmd, env, port, workdir / "service.log", args.ready_path, args.startup_timeout)
            )
            targets.append(Target("service", proc, port, scenario_set.scenarios))
        results = measure(args, pin, targets, args.token, workdir)
    ceiling = results[0].median("rps")

    db_label = "given --database-url" if args.database_url else "fresh temp SQLite"
    pin_label = f"server CPU {args.server_cpu}, wrk CPU {args.wrk_cpu}" if pin.server else "unpinned"
    target_label = (
        "baseline only" if args.only_baseline else f"scenarios={scenario_set.name}; database: {db_label}"
    )
    print(
        f"runs={args.runs} duration={args.duration:g}s connections={args.connections}"
        f" threads={args.threads} warmup={args.warmup:g}s; {pin_label}; {target_label}\n"
    )
    print(render_table(results, ceiling))
    if args.json:
        config = {k: v for k, v in vars(args).items() if k not in ("token", "json")}
        config.update(json=str(args.json), database=db_label, server_cmd=service_cmd)
        payload = {
            "config": config,
            "environment": environment_info(args.wrk),
            "ceiling_rps": ceiling,
            "results": [
                {
                    **asdict(r),
                    "median": {m: r.median(m) for m in ("rps", "p50_ms", "p99_ms")},
                    "pct_of_ceiling": 100 * r.median("rps") / ceiling if ceiling else None,
                }
                for r in results
            ],
        }
        args.json.write_text(json.dumps(payload, indent=2, default=str) + "\n")
        log(f"wrote {args.json}")
    return 1 if any(r.problems for r in results) else 0


# ------------------------------------------------------ benchmarks of one service


def parse_load_args(
    doc: str,
    argv: Sequence[str] | None,
    add_own: Callable[[argparse.ArgumentParser], None],
    runs_help: str = "runs (default 3)",
) -> argparse.Namespace:
    """The options of a benchmark loading one service with one wrk thread: runs, duration and
    connections, the benchmark's own (``add_own``), the service options and the wrk timeout."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help=runs_help)
    p.add_argument("--duration", type=float, default=10.0, help="seconds of load per run (default 10)")
    p.add_argument("--connections", type=int, default=16, help="connections (default 16)")
    add_own(p)
    add_service_options(p)
    p.add_argument("--wrk-timeout", type=float, default=5.0)
    args = p.parse_args(argv)
    args.threads = 1
    return args


@dataclass(frozen=True)
class Service:
    """The service a benchmark started: its pinning, port and database."""

    pin: Pinning
    port: int
    database_url: str

    @property
    def base(self) -> str:
        """The service's base URL."""
        return f"http://{HOST}:{self.port}"


@contextlib.contextmanager
def service(
    args: argparse.Namespace, workdir: Path, env: Mapping[str, str], startup_timeout: float = 120.0
) -> Iterator[Service]:
    """Start `subsvc serve` pinned, on ``--database-url`` or a fresh SQLite file, with ``env``
    (quiet logs, ``--env`` last) until it answers ``/health``; stop it afterwards."""
    args.wrk = ensure_wrk()
    pin = pinning(args)
    port = free_port()
    url = args.database_url or f"sqlite+aiosqlite:///{workdir}/bench.db"
    full_env = {
        **os.environ,
        "HOST": HOST,
        "PORT": str(port),
        "DATABASE_URL": url,
        "LOG_LEVEL": "WARNING",
        **env,
        **dict(kv.split("=", 1) for kv in args.env),
    }
    cmd = [*pin.server, *service_command(args)]
    with server(cmd, full_env, port, workdir / "server.log", "/health", startup_timeout):
        yield Service(pin, port, url)


def health_script(directory: Path) -> Path:
    """The wrk script of ``GET /health``, the ceiling measured beside a benchmark."""
    path = directory / "health.lua"
    path.write_text('wrk.method = "GET"\n')
    return path


def measure_ceiling(args: argparse.Namespace, svc: Service, workdir: Path) -> dict[str, float]:
    """``GET /health`` with the benchmark's wrk settings, the ceiling of the server and the load
    generator on this host: ``health_per_second`` and ``health_p50_ms``."""
    health = run_wrk(args, svc.pin, svc.base + "/health", health_script(workdir), args.duration)
    return {"health_per_second": health.rps, "health_p50_ms": health.p50_ms}


def spread(ids: Sequence[int], count: int) -> list[int]:
    """``count`` of ``ids`` (at most), spread evenly over all of them."""
    step = max(1, len(ids) // count)
    return list(ids[::step][:count])


def bearer_script(
    directory: Path, name: str, method: str, path: str, tokens: Sequence[str], body: str | None = None
) -> Path:
    """A wrk script sending ``method path`` (with a JSON ``body``) as each access token in turn."""
    lines = [f"wrk.method = {lua_string(method)}"]
    if body is not None:
        lines += ['wrk.headers["Content-Type"] = "application/json"', f"wrk.body = {lua_string(body)}"]
    lines += [
        "tokens = {" + ",\n".join(lua_string(t) for t in tokens) + "}",
        "sent = 0",
        "request = function()",
        "  sent = sent + 1",
        '  wrk.headers["Authorization"] = "Bearer " .. tokens[(sent % #tokens) + 1]',
        f"  return wrk.format(nil, {lua_string(path)})",
        "end",
    ]
    script = directory / name
    script.write_text("\n".join(lines) + "\n")
    return script


def json_answer(svc: Service, path: str, token: str, timeout: float = 60.0) -> dict[str, Any]:
    """One ``GET path`` answer of the service as the bearer of ``token``, decoded."""
    request = urllib.request.Request(svc.base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body: dict[str, Any] = json.loads(response.read())
        return body


def wrk_figures(name: str, result: RunResult) -> dict[str, float | int]:
    """One wrk run's figures under ``name``: ``{name}_per_second``, ``_p50_ms``, ``_p99_ms``,
    ``_non_2xx`` and ``_socket_errors``."""
    return {
        f"{name}_per_second": result.rps,
        f"{name}_p50_ms": result.p50_ms,
        f"{name}_p99_ms": result.p99_ms,
        f"{name}_non_2xx": result.non_2xx,
        f"{name}_socket_errors": result.socket_errors,
    }


def measure_gets(
    args: argparse.Namespace, svc: Service, workdir: Path, paths: Mapping[str, str], tokens: Sequence[str]
) -> list[dict[str, Any]]:
    """``--runs`` runs, each of wrk on every ``GET`` of ``paths`` (name: path), each request as the
    bearer of the next of ``tokens``, for ``--duration`` seconds, then the ceiling
    (:func:`measure_ceiling`); per run the :func:`wrk_figures` of every name."""
    scripts = {
        name: bearer_script(workdir, f"{name}.lua", "GET", path, tokens) for name, path in paths.items()
    }
    runs: list[dict[str, Any]] = []
    for number in range(args.runs):
        run: dict[str, Any] = {}
        for name, script in scripts.items():
            run.update(
                wrk_figures(name, run_wrk(args, svc.pin, svc.base + paths[name], script, args.duration))
            )
        run.update(measure_ceiling(args, svc, workdir))
        figures = ", ".join(
            f"{name} {run[f'{name}_per_second']:,.1f}/s p50 {run[f'{name}_p50_ms']:.1f} ms" for name in paths
        )
        log(f"run {number + 1}: {figures}, /health {run['health_per_second']:,.0f}/s")
        runs.append(run)
    return runs


def checked_result(
    runs: list[dict[str, Any]], names: Iterable[str], checks: Mapping[str, bool]
) -> dict[str, Any]:
    """The runs of :func:`measure_gets`, their medians and the answers' ``checks`` with one
    more, ``all_2xx`` (every run got only 2xx answers for ``names``); ``ok`` when all hold."""
    every = {**checks, "all_2xx": all(run[f"{name}_non_2xx"] == 0 for run in runs for name in names)}
    log(f"checks: {every}")
    return {"runs": runs, "median": medians(runs), "checks": every, "ok": all(every.values())}


Ledger = Callable[[], Coroutine[Any, Any, dict[str, int]]]
Judge = Callable[[RunResult, dict[str, int], dict[str, int]], tuple[int, bool]]


def measure_writes(
    args: argparse.Namespace,
    svc: Service,
    workdir: Path,
    name: str,
    path: str,
    script: Callable[[int], Path],
    ledger: Ledger,
    judge: Judge,
) -> dict[str, Any]:
    """``--runs`` runs of a writing request: wrk on ``path`` with ``script(number)`` (made ready
    for run ``number``) between two readings of ``ledger`` (the second once the requests in flight
    are answered), then the ceiling. ``judge(wrk's result, before, after)`` tells how many writes
    the run made and whether each was made exactly once. Per run ``writes``,
    ``writes_per_second``, the :func:`wrk_figures` of ``name``, both ledgers and
    ``exactly_once``; their medians; ``ok`` when every run was exact."""
    runs: list[dict[str, Any]] = []
    for number in range(args.runs):
        ready = script(number)
        before = asyncio.run(ledger())
        result = run_wrk(args, svc.pin, svc.base + path, ready, args.duration)
        after = asyncio.run(settled(ledger))
        ceiling = measure_ceiling(args, svc, workdir)
        writes, exact = judge(result, before, after)
        run = {
            "writes": writes,
            "writes_per_second": writes / args.duration,
            **wrk_figures(name, result),
            **ceiling,
            "ledger_before": before,
            "ledger_after": after,
            "exactly_once": exact,
        }
        log(
            f"run {number + 1}: {run['writes_per_second']:,.0f} writes/s, {name} answered"
            f" {result.rps:,.0f}/s, p50 {result.p50_ms:.1f} ms, /health {run['health_per_second']:,.0f}/s"
        )
        runs.append(run)
    skip = ("exactly_once", "writes", "ledger_before", "ledger_after")
    return {"runs": runs, "median": medians(runs, skip), "ok": all(run["exactly_once"] for run in runs)}


def wrk_rows(m: Mapping[str, Any], labels: Mapping[str, str], rate: str = ",.1f") -> list[tuple[str, str]]:
    """Rows of :func:`measures_table` for the medians ``m`` of :func:`wrk_figures`: per name of
    ``labels`` (name: operation) its requests/s and p50 / p99."""
    rows: list[tuple[str, str]] = []
    for name, label in labels.items():
        rows.append((f"{label}/s", format(m[f"{name}_per_second"], rate)))
        rows.append(("  p50 / p99", f"{m[f'{name}_p50_ms']:.1f} / {m[f'{name}_p99_ms']:.1f} ms"))
    return rows


def gets_table(
    args: argparse.Namespace,
    result: Mapping[str, Any],
    labels: Mapping[str, str],
    settings: str,
    checked: str,
    rate: str = ",.1f",
) -> str:
    """:func:`measures_table` of a :func:`checked_result`: the :func:`wrk_rows` of ``labels``, the
    ceiling, ``checked`` and its answer."""
    m = result["median"]
    return measures_table(args, settings, m, wrk_rows(m, labels, rate), (checked, result["ok"]))


def cabinet_env(**more: str) -> dict[str, str]:
    """The server's environment (with ``more``) for a benchmark whose requests carry cabinet
    access JWTs made by :func:`scenarios.cabinet_access_token`."""
    return {"CABINET_JWT_SECRET": CABINET_JWT_SECRET, **more}


def admin_env(admin_messenger_id: int, **more: str) -> dict[str, str]:
    """:func:`cabinet_env` of a benchmark acting as the administrator ``admin_messenger_id``."""
    return cabinet_env(ADMIN_IDS=str(admin_messenger_id), **more)


async def settled(read: Callable[[], Awaitable[T]]) -> T:
    """What ``read`` returns once the requests in flight when wrk stopped have been answered
    (two readings half a second apart agree)."""
    last = await read()
    while True:
        await asyncio.sleep(0.5)
        now = await read()
        if now == last:
            return now
        last = now


def medians(runs: Sequence[Mapping[str, Any]], skip: Sequence[str] = ()) -> dict[str, Any]:
    """The median of every figure of the runs but those in ``skip``."""
    return {key: statistics.median(run[key] for run in runs) for key in runs[0] if key not in skip}


def measures_table(
    args: argparse.Namespace,
    settings: str,
    m: Mapping[str, Any],
    rows: Sequence[tuple[str, str]],
    checked: tuple[str, bool],
) -> str:
    """The heading (runs, duration, connections, then ``settings``) and a Markdown table: the
    ``rows``, the ceiling's medians ``m`` (:func:`measure_ceiling`), the check and its answer."""
    table = [
        *rows,
        ("GET /health/s, same wrk settings (ceiling)", f"{m['health_per_second']:,.0f}"),
        ("GET /health p50", f"{m['health_p50_ms']:.1f} ms"),
        (checked[0], "yes" if checked[1] else "NO"),
    ]
    head = f"medians of {args.runs} runs × {args.duration:g} s, {args.connections} connections{settings}"
    return "\n".join([head, "", "| measure | value |", "|---|---:|", *(f"| {a} | {b} |" for a, b in table)])


def report(args: argparse.Namespace, result: dict[str, Any], table: str) -> int:
    """Print the table, write ``--json``; 0 when ``result["ok"]``, else 1 (and say so)."""
    print(table)
    if args.json:
        Path(args.json).write_text(json.dumps({"settings": {**vars(args)}, "result": result}, indent=2))
    if result["ok"]:
        return 0
    log("a check failed: NO in the table above (the runs are in --json)")
    return 1


def raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """Turn SIGTERM into SystemExit so cleanup code runs."""
    raise SystemExit(128 + signum)


def in_scratch_folder(prefix: str, work: Callable[[Path], int]) -> int:
    """``work(folder)`` in a temporary folder removed afterwards: its exit status, 2 after a
    :class:`BenchError` (logged), 130 when interrupted. The benchmarks' ``main``."""
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as folder:
            return work(Path(folder))
    except BenchError as exc:
        log(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        log("interrupted")
        return 130


Measure = Callable[[argparse.Namespace, Service, Path], dict[str, Any]]
Render = Callable[[dict[str, Any], argparse.Namespace], str]


def load_main(
    doc: str,
    argv: Sequence[str] | None,
    add_own: Callable[[argparse.ArgumentParser], None],
    env: Mapping[str, str],
    measure: Measure,
    render: Render,
    runs_help: str = "runs (default 3)",
) -> int:
    """The ``main`` of a benchmark of one service: its options (:func:`parse_load_args`), then in
    a scratch folder named after the script the service served with ``env`` (:func:`service`),
    ``measure(args, service, folder)`` and :func:`report` of ``render``'s table."""
    args = parse_load_args(doc, argv, add_own, runs_help)

    def benchmark(workdir: Path) -> int:
        with service(args, workdir, env) as svc:
            result = measure(args, svc, workdir)
        return report(args, result, render(result, args))

    return in_scratch_folder(f"subsvc-bench-{Path(sys.argv[0]).stem}-", benchmark)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, raise_on_sigterm)
    return in_scratch_folder("subsvc-bench-", lambda folder: benchmark(args, folder))


if __name__ == "__main__":
    sys.exit(main())
