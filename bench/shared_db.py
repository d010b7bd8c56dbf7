"""Two instances of the service sharing a PostgreSQL with few connection slots (issue 16).

Starts a PostgreSQL cluster of its own (initdb into a temporary folder, a free loopback port,
``max_connections=30`` by default, everything else stock) whose database belongs to a role
that is not a superuser (so the server's superuser reserve applies, as in production), seeds
it as the ``users`` set does (100,000 users), then, per configuration and round, starts two
``subsvc serve`` on loopback ports and drives both at once with one wrk: one thread per
instance, ``--connections`` (32) in all, repeating the ``users`` set's search for
``--duration`` seconds. Reported per configuration: req/s, p50/p99, the answers by status,
socket errors, the most connections both instances had open (sampled from their
``GET /metrics/pool``), their pool figures after the run and the warnings and errors they
logged.

A configuration is ``"LABEL[@REV]: KEY=VALUE ..."``: the service's extra environment, and the
code of git revision REV (a worktree, as ``bench/ab.py`` serves its base) instead of the
installed one. Configurations are measured in turns within each round.

Usage: python bench/shared_db.py [--runs 3] [--duration 20]
           [--config "before@<rev>: DATABASE_POOL_SIZE=20"] [--config "after@<rev>:"]
Quick check of the harness: python bench/shared_db.py --runs 1 --duration 3
"""

import argparse
import contextlib
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ab import python_path, worktree
from run import (
    HOST,
    BenchError,
    Pinning,
    RunResult,
    ensure_wrk,
    free_port,
    http_status,
    in_scratch_folder,
    log,
    lua_string,
    parse_wrk,
    run_wrk,
    server,
    service_command,
    write_wrk_script,
    wrk_output,
)
from scenarios import SCENARIO_SETS, SeedContext

SEARCH = next(s for s in SCENARIO_SETS["users"].scenarios if s.name.startswith("GET /users?search="))
ROLE, DATABASE = "subsvc", "subsvc_bench"
STATUS_RE = re.compile(r"^status (\d+): (\d+)$", re.MULTILINE)


# ----------------------------------------------------------------------- PostgreSQL


def pg_bin() -> Path:
    """The folder of initdb and pg_ctl: ``pg_config --bindir``, else the newest Debian one."""
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        found = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True, timeout=10
        )
        if (Path(found.stdout.strip()) / "initdb").exists():
            return Path(found.stdout.strip())
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not candidates:
        raise BenchError("initdb not found: install PostgreSQL's server package")
    return candidates[-1].parent


@contextlib.contextmanager
def private_postgres(max_connections: int) -> Iterator[str]:
    """A cluster of our own for the time of the run; yields its database's URL (as the role).

    As root, the cluster runs as the ``postgres`` user (initdb refuses root), in a folder of
    its own under the system's temporary folder (the run's scratch folder is root's only).
    """
    binaries = pg_bin()
    folder = Path(tempfile.mkdtemp(prefix="subsvc-bench-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port, log_path = folder / "data", free_port(), folder / "server.log"

    def run(*cmd: str, timeout: float = 120) -> None:
        try:
            subprocess.run(cmd, check=True, timeout=timeout, stdout=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            raise BenchError(f"{Path(cmd[0]).name} failed: {exc}") from exc

    try:
        run(
            *as_user, str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync"
        )
        options = f"-p {port} -c listen_addresses={HOST} -c unix_socket_directories={folder}"
        options += f" -c max_connections={max_connections}"
        log(f"starting PostgreSQL on {HOST}:{port}, max_connections={max_connections} ({log_path})")
        run(
            *as_user,
            str(binaries / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log_path),
            "-o",
            options,
            "-w",
            "start",
        )
        try:
            superuser = f"postgresql://postgres@{HOST}:{port}"
            for database, statement in (
                ("postgres", f"CREATE ROLE {ROLE} LOGIN PASSWORD 'bench'"),
                ("postgres", f"CREATE DATABASE {DATABASE} OWNER {ROLE}"),
                (DATABASE, "CREATE EXTENSION pg_trgm"),  # the users plugin's; a superuser's to create
            ):
                run("psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", f"{superuser}/{database}", "-c", statement)
            yield f"postgresql+asyncpg://{ROLE}:bench@{HOST}:{port}/{DATABASE}"
        finally:
            run(*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop", timeout=60)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------- configurations


@dataclass(frozen=True)
class Config:
    """What the instances run: a label, extra environment and a revision (None: installed)."""

    label: str
    env: dict[str, str]
    revision: str | None = None

    @classmethod
    def parse(cls, text: str) -> "Config":
        head, _, settings = text.partition(":")
        label, _, revision = head.strip().partition("@")
        pairs = settings.split()
        if not label or any("=" not in pair for pair in pairs):
            raise ValueError(f"not 'LABEL[@REV]: KEY=VALUE ...': {text!r}")
        return cls(label, dict(pair.split("=", 1) for pair in pairs), revision or None)


@dataclass
class Round:
    """One run of one configuration: wrk's figures, answers by status, connections seen."""

    result: RunResult
    statuses: dict[int, int]
    most_connections: int
    pools: list[dict[str, object]] = field(default_factory=list)
    server_errors: dict[str, int] = field(default_factory=dict)  # what the servers logged


LOGGED_RE = re.compile(r"^\S+ \S+ (?:WARNING|ERROR|CRITICAL) .*$")
ID_RE = re.compile(r"\b(?:0x)?[0-9a-f]{12,}\b")


def logged_exceptions(paths: Sequence[Path]) -> dict[str, int]:
    """Warnings and errors in the logs (without their time), and the last line of every
    traceback (the exception), counted."""
    found: Counter[str] = Counter()
    for path in paths:
        lines = path.read_text(errors="replace").splitlines()
        for number, line in enumerate(lines):
            if LOGGED_RE.match(line):  # ids (requests, connections) would tell every line apart
                found[ID_RE.sub("…", line.split(" ", 2)[2])[:200]] += 1
            elif line.startswith("Traceback"):
                end = number + 1
                while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
                    end += 1
                if end < len(lines):
                    found[lines[end][:200]] += 1
    return dict(found.most_common())


def metrics(port: int, token: str) -> dict[str, object]:
    """An instance's ``GET /metrics/pool``."""
    conn = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        conn.request("GET", "/metrics/pool", headers={"X-API-Key": token})
        response = conn.getresponse()
        return dict(json.loads(response.read()))
    finally:
        conn.close()


def open_connections(figures: dict[str, object]) -> int:
    """Connections an instance has open: its pool's size plus its overflow (negative while the
    pool has not opened them all), as SQLAlchemy counts them."""
    size, overflow = figures.get("size"), figures.get("overflow")
    return int(size) + int(overflow) if isinstance(size, int) and isinstance(overflow, int) else 0


class Sampler(threading.Thread):
    """Polls the instances' pools every ``every`` seconds; keeps the most connections seen."""

    def __init__(self, ports: Sequence[int], token: str, every: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.ports, self.token, self.every = ports, token, every
        self.most = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.every):
            with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
                seen = sum(open_connections(metrics(port, self.token)) for port in self.ports)
                self.most = max(self.most, seen)


def wrk_script(ports: Sequence[int], token: str, workdir: Path) -> Path:
    """The search's wrk script, plus: wrk thread N talks to instance N, and every answer's
    status is counted (printed per thread when the run is done)."""
    script = write_wrk_script(SEARCH, token, workdir)
    extra = [
        "local ports = {" + ", ".join(lua_string(str(port)) for port in ports) + "}",
        "local threads = {}",
        "function setup(thread)",
        "  table.insert(threads, thread)",
        f"  thread.addr = wrk.lookup({lua_string(HOST)}, ports[(#threads - 1) % #ports + 1])[1]",
        "end",
        "statuses = {}",
        "function response(status, headers, body)",
        "  statuses[status] = (statuses[status] or 0) + 1",
        "end",
        "function done(summary, latency, requests)",
        "  for _, thread in ipairs(threads) do",
        '    for status, count in pairs(thread:get("statuses")) do',
        '      io.write(string.format("status %d: %d\\n", status, count))',
        "    end",
        "  end",
        "end",
    ]
    with script.open("a") as fh:
        fh.write("\n".join(extra) + "\n")
    return script


def measure(args: argparse.Namespace, ports: Sequence[int], script: Path) -> Round:
    """Warm up, then drive every instance at once for ``--duration`` seconds."""
    url = f"http://{HOST}:{ports[0]}{SEARCH.first_path}"
    if args.warmup > 0:
        run_wrk(args, args.pin, url, script, args.warmup)
    sampler = Sampler(ports, args.token)
    sampler.start()
    try:
        result, statuses = run_counted(args, url, script)
    finally:
        sampler.stopping.set()
        sampler.join(5)
    return Round(result, statuses, sampler.most, [metrics(port, args.token) for port in ports])


def run_counted(args: argparse.Namespace, url: str, script: Path) -> tuple[RunResult, dict[int, int]]:
    """One wrk run: its figures, and the answers by status that the script printed."""
    output = wrk_output(args, args.pin, url, script, args.duration)
    counts: Counter[int] = Counter()
    for status, count in STATUS_RE.findall(output):
        counts[int(status)] += int(count)
    return parse_wrk(output), dict(sorted(counts.items()))


# ------------------------------------------------------------------------- running


@contextlib.contextmanager
def instances(
    args: argparse.Namespace, config: Config, database_url: str, trees: dict[str, Path], name: str
) -> Iterator[list[int]]:
    """``--instances`` servers of ``config`` on free loopback ports, all on one database."""
    env = {
        **os.environ,
        "HOST": HOST,
        "DATABASE_URL": database_url,
        "WEB_API_DEFAULT_TOKEN": args.token,
        "LOG_LEVEL": "WARNING",
        "CABINET_JWT_SECRET": "bench-shared-db-" + "s" * 32,  # no warning about a random one
        **config.env,
    }
    cmd = service_command(args)
    if config.revision:
        env["PYTHONPATH"] = python_path(trees[config.revision])
        cmd = [sys.executable, "-m", "subsvc", "serve"]
    with contextlib.ExitStack() as servers:
        ports = []
        for number in range(args.instances):
            port = free_port()
            log_path = args.workdir / f"{name}-{number}.log"
            servers.enter_context(
                server(cmd, {**env, "PORT": str(port)}, port, log_path, "/health", args.startup_timeout)
            )
            ports.append(port)
        for port in ports:
            status = http_status(port, SEARCH, args.token, timeout=10.0)
            if status != SEARCH.expect_status:
                raise BenchError(f"{config.label}: the search answered {status} on port {port}")
        yield ports


def summary(config: Config, rounds: Sequence[Round]) -> str:
    """A Markdown row: medians over the rounds, and every round's answers that were not 2xx."""

    def median(values: Sequence[float]) -> float:
        return float(statistics.median(values))

    failed = [
        ", ".join(f"{count:,} × {status}" for status, count in r.statuses.items() if not 200 <= status < 300)
        or "0"
        for r in rounds
    ]
    errors = sum(r.result.socket_errors for r in rounds)
    p50, p99 = median([r.result.p50_ms for r in rounds]), median([r.result.p99_ms for r in rounds])
    return (
        f"| {config.label} | {median([r.result.rps for r in rounds]):,.0f} | {p50:.2f} | {p99:.2f}"
        f" | {median([r.result.requests for r in rounds]):,.0f} | {'; '.join(failed)}"
        f" | {errors} | {median([r.most_connections for r in rounds]):.0f} |"
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="rounds: each configuration once per round (3)")
    p.add_argument("--duration", type=float, default=20, help="seconds per run (20)")
    p.add_argument("--warmup", type=float, default=2, help="discarded seconds before each run (2)")
    p.add_argument("--connections", type=int, default=32, help="wrk -c, over all instances (32)")
    p.add_argument("--instances", type=int, default=2, help="servers sharing the database (2)")
    p.add_argument(
        "--wrk-timeout",
        type=float,
        default=10,
        help="seconds before wrk gives up on an answer (10: above DATABASE_TIMEOUT, so that a slow "
        "answer is counted with its status)",
    )
    p.add_argument("--max-connections", type=int, default=30, help="PostgreSQL's max_connections (30)")
    p.add_argument(
        "--config",
        dest="configs",
        action="append",
        type=Config.parse,
        metavar="'LABEL[@REV]: KEY=VALUE ...'",
        help="a configuration to measure (repeatable; default: the installed code's defaults)",
    )
    p.add_argument("--server-cmd", help="service command for configurations without @REV (subsvc serve)")
    p.add_argument("--token", default="bench-shared-" + "t" * 24, help="WEB_API_DEFAULT_TOKEN")
    p.add_argument("--startup-timeout", type=float, default=60)
    p.add_argument("--json", type=Path, metavar="FILE", help="also write every run as JSON")
    args = p.parse_args(argv)
    args.configs = args.configs or [Config("defaults", {})]
    if len({c.label for c in args.configs}) != len(args.configs):
        p.error("configuration labels must differ")
    if args.runs < 1 or args.duration <= 0 or not 1 <= args.instances <= args.connections:
        p.error("need runs >= 1, duration > 0 and connections >= instances >= 1")
    return args


def benchmark(args: argparse.Namespace) -> int:
    args.wrk = ensure_wrk()
    args.pin = Pinning()  # unpinned: the instances, PostgreSQL and wrk share the host's cores
    args.threads = args.instances  # one wrk thread per instance
    rounds: dict[str, list[Round]] = {c.label: [] for c in args.configs}
    with contextlib.ExitStack() as stack:
        trees = {}
        for number, revision in enumerate(dict.fromkeys(c.revision for c in args.configs if c.revision)):
            (args.workdir / f"tree-{number}").mkdir()
            trees[revision] = stack.enter_context(worktree(revision, args.workdir / f"tree-{number}"))
        database_url = stack.enter_context(private_postgres(args.max_connections))
        seed_env = {**os.environ, "DATABASE_URL": database_url, "WEB_API_DEFAULT_TOKEN": args.token}
        last = args.configs[-1]
        if last.revision:  # the newest code migrates
            seed_env["PYTHONPATH"] = python_path(trees[last.revision])
        log("seeding (migrations, users)")
        seed = SCENARIO_SETS["users"].seed
        assert seed is not None
        seed(SeedContext(seed_env, args.workdir, tuple(service_command(args))))
        for number in range(1, args.runs + 1):
            for config in args.configs:
                name = f"{re.sub(r'[^A-Za-z0-9]+', '-', config.label)}-{number}"
                with instances(args, config, database_url, trees, name) as ports:
                    found = measure(args, ports, wrk_script(ports, args.token, args.workdir))
                found.server_errors = logged_exceptions(sorted(args.workdir.glob(f"{name}-*.log")))
                rounds[config.label].append(found)
                log(
                    f"[{config.label}] round {number}/{args.runs}: {found.result.rps:,.0f} req/s,"
                    f" p50 {found.result.p50_ms:.2f} ms, p99 {found.result.p99_ms:.2f} ms,"
                    f" answers {found.statuses}, socket errors {found.result.socket_errors},"
                    f" most connections open {found.most_connections}"
                )
                for text, count in found.server_errors.items():
                    log(f"[{config.label}]   in the servers' logs {count} ×: {text}")
    print(
        f"{args.instances} instances, PostgreSQL max_connections={args.max_connections};"
        f" {args.connections} connections of `{SEARCH.method} {SEARCH.path}` split over them;"
        f" {args.runs} runs × {args.duration:g} s (medians); unpinned, {os.cpu_count()} CPUs\n"
    )
    columns = ("configuration", "req/s", "p50 ms", "p99 ms", "requests", "not 2xx, per run", "socket errors")
    print("| " + " | ".join((*columns, "most connections open")) + " |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    for config in args.configs:
        print(summary(config, rounds[config.label]))
    for config in args.configs:
        logged: Counter[str] = Counter()
        for found in rounds[config.label]:
            logged.update(found.server_errors)
        for text, count in logged.most_common(5):
            print(f"- {config.label}: {count:,} × `{text}` in the servers' logs")
    if args.json:
        payload = {
            "settings": {k: str(v) for k, v in vars(args).items() if k not in ("token", "configs", "pin")},
            "configs": [asdict(c) for c in args.configs],
            "rounds": {label: [asdict(r) for r in found] for label, found in rounds.items()},
        }
        args.json.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    bad = any(
        r.result.socket_errors or any(not 200 <= status < 300 for status in r.statuses)
        for found in rounds.values()
        for r in found
    )
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)

    def in_folder(folder: Path) -> int:
        args.workdir = folder
        return benchmark(args)

    return in_scratch_folder("subsvc-bench-shared-", in_folder)


if __name__ == "__main__":
    sys.exit(main())
