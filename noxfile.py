"""Sessions: tests (SQLite), tests_pg (PostgreSQL), lint, typecheck, conformance, serve, fuzz.

`nox` alone runs tests and tests_pg. tests_pg uses TEST_DATABASE_URL (default: the local
PostgreSQL, database subsvc_test, created if missing); outside CI it is skipped with a
message when no PostgreSQL answers. Environments are made and filled by uv when nox finds it
(`pip install nox uv`), else by virtualenv and pip.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import nox

ROOT = Path(__file__).parent
PLUGINS = sorted(str(p.parent) for p in (ROOT / "plugins").glob("*/pyproject.toml"))
DEFAULT_PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/subsvc_test"
# The shared folder beside the repository (the contract and its tools); SUBSVC_SHARED names
# another place.
SHARED = Path(os.environ.get("SUBSVC_SHARED") or ROOT.parent / "shared")
# `nox -s conformance` fails when fewer of a reference document's operations than its floor are
# compatible: release 4.1.0 (the contract of record, what the clients in the field speak) and
# 3.36.0, which it extends. Raise them with the counts as operations are added, never lower
# them to make a change pass.
CONFORMANCE_FLOORS = {"openapi-4.1.0.json": 618, "openapi.json": 544}
# Most tests wait (on the database, on loopback servers) more than they compute: run them in
# several processes (pytest-xdist), a file per process at a time so module fixtures stay
# together. `nox -s tests -- -n 0` runs them in one process.
WORKERS = ["-n", os.environ.get("SUBSVC_TEST_WORKERS", "4"), "--dist", "loadfile"]

nox.options.sessions = ["tests", "tests_pg"]
nox.options.reuse_existing_virtualenvs = True
# uv resolves and installs core and the plugins (33 editable distributions) several times faster
# than pip. nox finds it beside itself (`pip install nox uv`, as the README says) or on PATH;
# without it the sessions use virtualenv and pip.
nox.options.default_venv_backend = "uv|virtualenv"


def install(session: nox.Session, *extras: str) -> None:
    """Core (editable, with extras) and every plugin under plugins/ (with its own ``test``
    extra when the session installs core's)."""
    core = f".[{','.join(extras)}]" if extras else "."
    suffix = "[test]" if "test" in extras else ""
    session.install("-e", core, *[arg for plugin in PLUGINS for arg in ("-e", plugin + suffix)])


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite on SQLite."""
    install(session, "test")
    env = {"TEST_DATABASE_URL": ""}
    session.run("pytest", *WORKERS, *session.posargs, env=env)


@nox.session
def tests_pg(session: nox.Session) -> None:
    """The whole suite on PostgreSQL (TEST_DATABASE_URL)."""
    url = os.environ.get("TEST_DATABASE_URL") or DEFAULT_PG
    if not _reachable(url):
        if os.environ.get("CI"):
            session.error(f"PostgreSQL at {url} does not answer")
        session.skip(f"no PostgreSQL answers at {url}; set TEST_DATABASE_URL to run this session")
    install(session, "test")
    session.run("python", "-m", "subsvc.testing_db", url)  # create the database if missing
    session.run("pytest", *WORKERS, *session.posargs, env={"TEST_DATABASE_URL": url})


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint and format check."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy (strict) on core and every plugin's package (pyproject.toml [tool.mypy])."""
    install(session, "test", "dev")
    session.run("mypy", *session.posargs)


@nox.session
def conformance(session: nox.Session) -> None:
    """Our OpenAPI document (every installed plugin) against each reference document of
    CONFORMANCE_FLOORS (SUBSVC_SHARED, default ../shared: reference/, tools/conformance.py);
    fails when fewer operations than a document's floor are compatible. Arguments go to the
    tool (`-- --detail`, `-- --missing`, `-- --tag users`). Without the shared folder it is
    skipped with a message, except in CI (CI=true), where it fails."""
    tool = SHARED / "tools" / "conformance.py"
    references = [SHARED / "reference" / name for name in CONFORMANCE_FLOORS]
    if not (tool.is_file() and all(reference.is_file() for reference in references)):
        message = f"no conformance tool and reference contracts under {SHARED}; set SUBSVC_SHARED"
        if os.environ.get("CI"):
            session.error(message)
        session.skip(message)
    install(session)
    tmp = Path(session.create_tmp())
    ours = tmp / "ours.json"
    with ours.open("w") as out:  # the document alone: warnings (stderr) go to the terminal
        session.run("python", "-m", "subsvc", "openapi", stdout=out, stderr=None)
    one_tag = any(arg.split("=")[0] == "--tag" for arg in session.posargs)
    short = []
    for reference in references:
        report = tmp / f"conformance-{reference.stem}.json"
        session.log(f"against {reference.name}")
        args = ["--reference", str(reference), "--json", str(report), *session.posargs]
        session.run("python", str(tool), str(ours), *args)
        compatible = json.loads(report.read_text())["compatible"]
        floor = CONFORMANCE_FLOORS[reference.name]
        if one_tag:
            continue  # one tag's count: the floors are for the whole contract
        session.log(f"{reference.name}: {compatible} compatible operations (floor {floor})")
        if compatible < floor:
            short.append(f"{reference.name}: {compatible} compatible, fewer than the floor of {floor}")
    if short:
        session.error("; ".join(short) + " (noxfile.py CONFORMANCE_FLOORS)")


@nox.session
def serve(session: nox.Session) -> None:
    """Install core and every plugin, then serve on the embedded SQLite default (port 8080)."""
    install(session)
    session.run("subsvc", "serve", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """schemathesis against the app with every plugin (tests/fuzz), on SQLite then PostgreSQL.

    Every operation gets N schema-valid and N schema-invalid requests (`-- --examples N`, or
    FUZZ_EXAMPLES; default 20), judged by not_a_server_error, status_code_conformance,
    content_type_conformance, response_schema_conformance and ignored_auth. Any failure fails
    the run; `-- --fail-on server-errors` fails only on 500s (the rest is reported). Other
    arguments go to pytest. FUZZ_SEED=<n> sends another (deterministic) set of requests than
    the default derandomized one. The operations that could lock the run's own credentials out
    (they run last, without the cases aimed at those credentials) and those left out are
    listed with the reason in tests/fuzz/conftest.py (LOCKOUT, EXCLUDED). Each database's
    findings are written to fuzz-<database>.json in the session's tmp folder. PostgreSQL:
    FUZZ_DATABASE_URL (default: TEST_DATABASE_URL's server, database <name>_fuzz; emptied),
    skipped outside CI when it does not answer, like tests_pg.
    """
    args = list(session.posargs)
    env = {
        "FUZZ_EXAMPLES": os.environ.get("FUZZ_EXAMPLES", "20"),
        "FUZZ_FAIL_ON": os.environ.get("FUZZ_FAIL_ON", "any"),
    }
    for option, name in (("--examples", "FUZZ_EXAMPLES"), ("--fail-on", "FUZZ_FAIL_ON")):
        if option in args:
            at = args.index(option)
            env[name] = args[at + 1]
            del args[at : at + 2]
    databases = {"sqlite": ""}
    url = os.environ.get("FUZZ_DATABASE_URL") or _fuzz_database(
        os.environ.get("TEST_DATABASE_URL") or DEFAULT_PG
    )
    if _reachable(url):
        databases["postgresql"] = url
    elif os.environ.get("CI"):
        session.error(f"PostgreSQL at {url} does not answer")
    else:
        session.warn(f"no PostgreSQL answers at {url}: fuzzing SQLite only (set FUZZ_DATABASE_URL)")
    install(session, "fuzz")
    tmp = Path(session.create_tmp())
    failed = []
    for name, database in databases.items():
        report = str(tmp / f"fuzz-{name}.json")
        try:
            session.run(
                "pytest",
                "tests/fuzz",
                *args,
                env={**env, "FUZZ_DATABASE_URL": database, "FUZZ_REPORT": report},
            )
        except nox.command.CommandFailed:
            failed.append(name)  # the other database still runs
        session.log(f"{name} findings: {report}")
    if failed:
        session.error(f"fuzzing failed on {', '.join(failed)}")


def _fuzz_database(url: str) -> str:
    """The database beside ``url``'s named ``<its name>_fuzz``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"{parts.path.rstrip('/') or '/subsvc_test'}_fuzz"))


def _reachable(url: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(url.replace("+asyncpg", ""))
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5432), timeout=2):
            return True
    except OSError:
        return False
