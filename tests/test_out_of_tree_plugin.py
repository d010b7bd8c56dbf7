"""The out-of-tree plugin of docs/writing-plugins.md, kept in docs/examples/subsvc-hello.

The doc shows the example's files as they are; copied outside the repository, the example
installs with pip into a fresh virtual environment (which sees this environment's packages:
subsvc and the plugins of plugins/), passes its own tests and is served by `subsvc serve`.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sysconfig
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "writing-plugins.md"
EXAMPLE = ROOT / "docs" / "examples" / "subsvc-hello"
STARTUP_SECONDS = 90  # slow when the tests share the CPUs
API_KEY = "hello-example-key-" + "k" * 20
BLOCK = re.compile(r"^```\w*\n(.*?)^```$", re.S | re.M)


def example_files() -> dict[str, str]:
    """``{path: text}`` of the example's files that have content (not ``py.typed``, empty
    ``__init__.py``, caches)."""
    return {
        path.relative_to(EXAMPLE).as_posix(): path.read_text()
        for path in sorted(EXAMPLE.rglob("*"))
        if path.is_file() and path.suffix in {".py", ".toml"} and path.stat().st_size > 0
    }


def doc_blocks() -> list[str]:
    return BLOCK.findall(DOC.read_text())


def test_the_doc_shows_every_file_of_the_example_as_it_is() -> None:
    """A block whose first line is ``# <path of a file of the example>`` is that file."""
    files = example_files()
    shown = {}
    for block in doc_blocks():
        first, _, rest = block.partition("\n")
        if first.removeprefix("# ") in files:
            shown[first.removeprefix("# ")] = rest
    assert shown == files


def test_the_doc_lists_every_file_of_the_example() -> None:
    tree = next(block for block in doc_blocks() if block.startswith("subsvc-hello/\n"))
    listed, parents = set(), {}
    for line in tree.splitlines()[1:]:
        depth = (len(line) - len(line.lstrip())) // 2
        name = line.strip()
        parents[depth] = parents.get(depth - 1, "") + name
        if not name.endswith("/"):
            listed.add(parents[depth])
    files = {
        path.relative_to(EXAMPLE).as_posix()
        for path in EXAMPLE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert listed == files


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The example copied outside the repository and pip-installed into a fresh virtual
    environment: ``(the copy, the environment's python)``."""
    work = tmp_path_factory.mktemp("out-of-tree")
    assert not work.resolve().is_relative_to(ROOT.resolve())
    source = shutil.copytree(EXAMPLE, work / "subsvc-hello", ignore=shutil.ignore_patterns("__pycache__"))
    venv.create(work / "venv", with_pip=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(work / "venv")}))
    here = sysconfig.get_path("purelib")  # subsvc, the plugins of plugins/, pytest, uvicorn...
    (site / "subsvc_test_env.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    python = work / "venv" / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
    result = subprocess.run([*pip, str(source)], capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return source, python


def clean_env(**settings: str) -> dict[str, str]:
    """This process's environment without subsvc's settings, plus ``settings``."""
    kept = ("SUBSVC_", "WEB_API", "DATABASE", "TEST_DATABASE", "HELLO_", "PYTHON")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(kept)}, **settings}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(installed: tuple[Path, Path], tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`subsvc serve` from the environment, with `hello` the only plugin enabled, on a
    migrated SQLite database: ``(base URL, database file)``; stopped at the end."""
    _, python = installed
    port, database = free_port(), tmp_path / "hello.db"
    env = clean_env(
        DATABASE_URL=f"sqlite+aiosqlite:///{database}",
        SUBSVC_PLUGINS="hello",
        HELLO_DEFAULT_LANGUAGE="de",
        WEB_API_DEFAULT_TOKEN=API_KEY,
        CABINET_JWT_SECRET="hello-example-" + "s" * 32,
        HOST="127.0.0.1",
        PORT=str(port),
        LOG_LEVEL="WARNING",
    )
    process = subprocess.Popen(
        [str(python), "-m", "subsvc", "serve"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        while True:
            try:
                httpx2.get(f"{url}/health", timeout=1)
                break
            except httpx2.TransportError:
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                assert time.monotonic() - started < STARTUP_SECONDS, "the server did not answer"
                time.sleep(0.1)
        yield url, database
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout:
            process.stdout.close()


def test_the_installed_example_is_served(server: tuple[str, Path]) -> None:
    url, database = server
    key = {"X-API-Key": API_KEY}
    missing = httpx2.get(f"{url}/hello", headers=key)
    assert (missing.status_code, missing.json()) == (404, {"detail": "No greeting"})
    put = httpx2.put(f"{url}/hello", json={"language": "de", "text": "Hallo"}, headers=key)
    assert (put.status_code, put.json()) == (200, {"language": "de", "text": "Hallo"})
    # HELLO_DEFAULT_LANGUAGE=de: the setting is read
    assert httpx2.get(f"{url}/hello", headers=key).json() == {"language": "de", "text": "Hallo"}
    assert httpx2.get(f"{url}/hello", params={"language": "en"}, headers=key).status_code == 404
    assert httpx2.get(f"{url}/hello").status_code == 401
    plugins = {p["name"]: p for p in httpx2.get(f"{url}/plugins", headers=key).json()}
    assert plugins["hello"] == {
        "name": "hello",
        "version": "0.1.0",
        "enabled": True,
        "internal": False,
        "requires": [],
    }
    with sqlite3.connect(database) as db:  # its migration made its table
        assert db.execute("SELECT language, text FROM hello_greetings").fetchall() == [("de", "Hallo")]
        assert ("hello_0001",) in db.execute("SELECT version_num FROM alembic_version").fetchall()


def test_the_example_passes_its_own_tests(installed: tuple[Path, Path]) -> None:
    source, python = installed
    result = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=source,
        env=clean_env(TEST_DATABASE_URL=""),  # its own SQLite files, not this run's database
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout
