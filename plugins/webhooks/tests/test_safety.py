"""The private-target guard: refused when saved, and on every connection (when it is on)."""

from __future__ import annotations

import asyncio
import ipaddress

import httpx2
import pytest
from subsvc_webhooks.delivery import blocks_private_targets
from subsvc_webhooks.safety import is_refused

from subsvc.app import create_app
from subsvc.testing import API_KEY

from .conftest import create, refused, with_worker

REFUSED = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "100.64.0.1",  # carrier-grade NAT
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "fe80::1",
    "fc00::1",
    "::ffff:127.0.0.1",
]
ALLOWED = ["93.184.216.34", "8.8.8.8", "2001:4860:4860::8888"]


def test_which_addresses_are_refused():
    for text in REFUSED:
        assert is_refused(ipaddress.ip_address(text)), text
    for text in ALLOWED:
        assert not is_refused(ipaddress.ip_address(text)), text


@pytest.mark.parametrize(
    ("environment", "setting", "blocked"),
    [
        ("production", None, True),
        ("development", None, False),
        ("test", None, False),
        ("production", "false", False),
        ("test", "true", True),
    ],
)
def test_the_guard_is_on_by_default_outside_development_and_test(
    subsvc_settings, subsvc_plugins, monkeypatch, environment, setting, blocked
):
    if setting is not None:
        monkeypatch.setenv("WEBHOOK_BLOCK_PRIVATE_TARGETS", setting)
    settings = subsvc_settings.model_copy(update={"ENVIRONMENT": environment})
    assert blocks_private_targets(create_app(settings, plugins=subsvc_plugins)) is blocked


@pytest.mark.webhook_env(WEBHOOK_BLOCK_PRIVATE_TARGETS="true")
async def test_private_targets_are_refused_when_saved(client):
    for url in (
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "https://10.0.0.5/hook",
        "http://[::1]:9000/",
        "http://169.254.169.254/latest/meta-data",
    ):
        error = await refused(client, url)
        assert error["loc"] == ["body", "url"]
        assert "private or loopback" in error["msg"] and "WEBHOOK_BLOCK_PRIVATE_TARGETS" in error["msg"]
    public = await create(client, name="n", url="http://93.184.216.34/hook", event_type="*")
    r = await client.patch(f"/webhooks/{public['id']}", json={"url": "http://192.168.0.10/"})
    assert r.status_code == 422
    r = await client.patch("/webhooks/999", json={"url": "http://192.168.0.10/"})
    assert r.status_code == 404  # an unknown id first
    r = await client.post("/webhooks", json={"name": "n", "url": "http://10.0.0.1/", "event_type": "nope"})
    assert [e["loc"][1] for e in r.json()["detail"]] == ["event_type", "url"]  # every failure at once


@pytest.mark.own_apps
async def test_a_target_that_became_private_is_refused_on_connection_and_not_retried(
    subsvc_settings, subsvc_plugins, app, client, receiver, monkeypatch, wait_for
):
    # saved while the guard was off (the test environment), sent by an app with the guard on
    hook = (
        await client.post("/webhooks", json={"name": "n", "url": receiver.url, "event_type": "user.created"})
    ).json()
    monkeypatch.setenv("WEBHOOK_BLOCK_PRIVATE_TARGETS", "true")
    guarded = create_app(with_worker(subsvc_settings), plugins=subsvc_plugins)
    async with guarded.router.lifespan_context(guarded):
        transport = httpx2.ASGITransport(app=guarded)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://t", headers={"X-API-Key": API_KEY}
        ) as other:
            assert (await other.post("/users", json={"first_name": "A"})).status_code == 201

            async def failed() -> bool:
                r = await other.get(f"/webhooks/{hook['id']}/deliveries", params={"status": "failed"})
                return r.json()["total"] == 1

            await wait_for(failed)
            await asyncio.sleep(0.4)  # more than the retry wait: no further attempt
            page = (await other.get(f"/webhooks/{hook['id']}/deliveries")).json()
    (attempt,) = page["items"]
    assert attempt["status"] == "failed" and attempt["next_retry_at"] is None
    assert attempt["error_message"].startswith("URL targets a private or loopback address: 127.0.0.1")
    assert attempt["error_message"].endswith("(gave up after attempt 1)")
    assert receiver.requests == []
