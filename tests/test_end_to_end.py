"""The real thing: `subsvc` as a process, uvicorn on loopback, the command line."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import websockets.sync.client

STOP_SECONDS = 30
STARTUP_SECONDS = 90  # migrating and starting every plugin; slow when the tests share the CPUs


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SUBSVC_", "WEB_API", "DATABASE"))}
    return {
        **base,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/e2e.db",
        "LOG_LEVEL": "WARNING",
        "CABINET_JWT_SECRET": "e2e-secret-" + "x" * 32,
    }


def subsvc(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "subsvc", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@contextlib.contextmanager
def serving(env: dict[str, str], *args: str) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """`subsvc serve` on a free loopback port, answering /health; stopped at the end."""
    port = free_port()
    env = {**env, "PORT": str(port), "HOST": "127.0.0.1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "subsvc", "serve", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        started = time.monotonic()
        while True:
            try:
                r = httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx2.TransportError:
                assert server.poll() is None, server.stdout.read()
                assert time.monotonic() - started < STARTUP_SECONDS, (
                    f"server did not answer within {STARTUP_SECONDS} s"
                )
                time.sleep(0.1)
        assert r.status_code == 200 and r.json()["status"] == "ok"
        yield port, server
    finally:
        server.terminate()
        try:  # a graceful stop; generous, as a loaded CI host makes two processes slow to stop
            server.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            raise


def test_serve_migrates_answers_health_and_accepts_a_cli_token(env):
    with serving(env) as (port, _):
        created = subsvc("tokens", "create", "from-cli", env=env)
        assert created.returncode == 0, created.stderr
        token = created.stdout.strip().splitlines()[-1]
        r = httpx2.get(f"http://127.0.0.1:{port}/tokens", headers={"X-API-Key": token})
        assert r.status_code == 200
        assert [t["name"] for t in r.json()] == ["from-cli"]
        assert r.json()[0]["created_by"] == "cli"


def serving_processes(parent: int) -> list[str]:
    """The children of ``parent`` that uvicorn started to serve (not multiprocessing's helper)."""
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    return [pid for pid in children if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]


def test_several_processes_serve_one_port_on_one_migrated_database(env, redis_url):
    settings = {**env, "REDIS_URL": redis_url, "WEB_API_DEFAULT_TOKEN": "e2e-api-key-" + "w" * 20}
    with serving(settings, "--workers", "2") as (port, server):
        assert len(serving_processes(server.pid)) == 2
        base_url = f"http://127.0.0.1:{port}"
        admin = {"X-API-Key": settings["WEB_API_DEFAULT_TOKEN"]}
        created = httpx2.post(f"{base_url}/tokens", json={"name": "shared"}, headers=admin)
        assert created.status_code == 201, created.text
        token = {"X-API-Key": created.json()["token"]}

        def statuses() -> set[int]:  # a new connection per request: either process answers
            return {httpx2.get(f"{base_url}/tokens", headers=token).status_code for _ in range(30)}

        assert statuses() == {200}  # now remembered by whichever processes answered
        revoked = httpx2.post(f"{base_url}/tokens/{created.json()['id']}/revoke", headers=admin)
        assert revoked.status_code == 200
        time.sleep(0.5)  # the revocation travels through Redis
        assert statuses() == {401}
    output = server.stdout.read()
    assert "Traceback" not in output, output


def test_several_processes_without_redis_are_refused(env):
    result = subsvc("serve", "--workers", "2", env=env)
    assert result.returncode == 2
    assert "WORKERS: 2 processes need REDIS_URL" in result.stderr


def test_websocket_credentials_in_the_query_never_reach_the_log(env):
    secret = "e2e-api-key-" + "s" * 20
    settings = {**env, "LOG_LEVEL": "INFO", "WEB_API_DEFAULT_TOKEN": secret}
    with serving(settings) as (port, server):
        url = f"ws://127.0.0.1:{port}/ws?token={secret}"
        with websockets.sync.client.connect(url) as socket_:
            assert json.loads(socket_.recv(timeout=5))["type"] == "connection"
    output = server.stdout.read()
    assert "WebSocket /ws?token=***" in output
    assert secret not in output


def test_invalid_setting_stops_with_the_variable_named(env):
    result = subsvc("serve", env={**env, "PORT": "not-a-port"})
    assert result.returncode == 2
    assert "PORT" in result.stderr and "invalid settings" in result.stderr


def test_unknown_plugin_in_settings_stops_start(env):
    result = subsvc("plugins", env={**env, "SUBSVC_PLUGINS": "nonexistent"})
    assert result.returncode == 2
    assert "SUBSVC_PLUGINS names unknown plugin(s): nonexistent" in result.stderr


def test_plugins_command_lists_plugins(env):
    result = subsvc("plugins", env=env)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "version", "enabled", "requires"]
    assert any(line.startswith("core.tokens") for line in lines)


def test_settings_command_documents_every_setting(env):
    result = subsvc("settings", env=env)
    from subsvc.settings import Settings

    for name in Settings.model_fields:
        assert f"| `{name}` |" in result.stdout


def test_readme_documents_every_setting():
    from pathlib import Path

    from subsvc.settings import Settings

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    missing = [name for name in Settings.model_fields if f"| `{name}` |" not in readme]
    assert missing == []
