"""API tokens: lifecycle, credentials, expiry, bootstrap, HMAC, cache and usage writes."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from subsvc.testing import API_KEY
from subsvc.tokens.models import ApiToken
from subsvc.tokens.service import ensure_bootstrap, hash_token


async def rows(db) -> list[ApiToken]:
    async with db.session() as session:
        return list((await session.exec(select(ApiToken).order_by(ApiToken.id))).all())


async def create(client, name="ci", **body):
    r = await client.post("/tokens", json={"name": name, **body})
    assert r.status_code == 201, r.text
    return r.json()


async def test_missing_and_invalid_keys_are_refused_with_the_reference_texts(anon_client):
    r = await anon_client.get("/tokens")
    assert (r.status_code, r.json()) == (401, {"detail": "Missing API key"})
    r = await anon_client.get("/tokens", headers={"X-API-Key": "nope"})
    assert (r.status_code, r.json()) == (401, {"detail": "Invalid or expired API key"})
    r = await anon_client.get("/tokens", headers={"X-API-Key": "   "})
    assert (r.status_code, r.json()) == (401, {"detail": "Invalid or expired API key"})
    r = await anon_client.get("/tokens", headers={"Authorization": "Basic abc"})
    assert (r.status_code, r.json()) == (401, {"detail": "Missing API key"})


async def test_create_returns_the_plain_token_once_and_stores_only_its_hash(client, db):
    body = await create(client, "  deploy bot  ", description="CI")
    assert body["name"] == "deploy bot"
    assert body["prefix"] == body["token"][:8]
    assert body["created_by"] == "Bootstrap Token"
    assert body["is_active"] is True and body["description"] == "CI"
    assert len(body["token"]) >= 60
    stored = {t.id: t for t in await rows(db)}[body["id"]]
    assert stored.token_hash == hashlib.sha256(body["token"].encode()).hexdigest()
    listed = (await client.get("/tokens")).json()
    assert [t["name"] for t in listed] == ["deploy bot", "Bootstrap Token"]
    assert all("token" not in t and "token_hash" not in t for t in listed)


async def test_a_created_token_authenticates_by_header_and_by_bearer(client, anon_client):
    plain = (await create(client))["token"]
    assert (await anon_client.get("/tokens", headers={"X-API-Key": plain})).status_code == 200
    assert (await anon_client.get("/tokens", headers={"Authorization": f"bearer {plain}"})).status_code == 200


async def test_blank_name_and_naive_expiry_are_422(client):
    r = await client.post("/tokens", json={"name": "  "})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "name"]
    r = await client.post("/tokens", json={"name": "x", "expires_at": "2030-01-01T00:00:00"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "expires_at"]


async def test_revoke_takes_effect_at_once_and_activate_restores(client, anon_client):
    token = await create(client)
    headers = {"X-API-Key": token["token"]}
    assert (await anon_client.get("/tokens", headers=headers)).status_code == 200  # now cached
    r = await client.post(f"/tokens/{token['id']}/revoke")
    assert r.status_code == 200 and r.json()["is_active"] is False and r.json()["updated_at"]
    r = await anon_client.get("/tokens", headers=headers)
    assert (r.status_code, r.json()) == (401, {"detail": "Invalid or expired API key"})
    r = await client.post(f"/tokens/{token['id']}/activate")
    assert r.status_code == 200 and r.json()["is_active"] is True
    assert (await anon_client.get("/tokens", headers=headers)).status_code == 200


async def test_delete_is_204_and_then_404(client, anon_client, db):
    token = await create(client)
    r = await client.delete(f"/tokens/{token['id']}")
    assert r.status_code == 204 and r.content == b""
    assert token["id"] not in [t.id for t in await rows(db)]
    assert (await anon_client.get("/tokens", headers={"X-API-Key": token["token"]})).status_code == 401
    for method, path in [("delete", ""), ("post", "/revoke"), ("post", "/activate")]:
        r = await client.request(method.upper(), f"/tokens/{token['id']}{path}")
        assert (r.status_code, r.json()) == (404, {"detail": "Token not found"})


async def test_expired_token_is_refused_even_from_cache(client, anon_client, db):
    soon = datetime.now(UTC) + timedelta(seconds=1)
    token = await create(client, expires_at=soon.isoformat())
    headers = {"X-API-Key": token["token"]}
    assert (await anon_client.get("/tokens", headers=headers)).status_code == 200
    await asyncio.sleep(1.1)
    assert (await anon_client.get("/tokens", headers=headers)).status_code == 401
    past = await create(client, expires_at=(datetime.now(UTC) - timedelta(minutes=1)).isoformat())
    assert (await anon_client.get("/tokens", headers={"X-API-Key": past["token"]})).status_code == 401


async def test_bootstrap_token_is_ensured_at_start_and_recreated_on_use(client, anon_client, db):
    (boot,) = await rows(db)
    assert (boot.name, boot.created_by, boot.token_prefix) == ("Bootstrap Token", "migration", API_KEY[:8])
    assert (await client.delete(f"/tokens/{boot.id}")).status_code == 204
    assert await rows(db) == []
    # the configured value still works: the row comes back
    assert (await anon_client.get("/tokens", headers={"X-API-Key": API_KEY})).status_code == 200
    assert [t.name for t in await rows(db)] == ["Bootstrap Token"]


async def test_used_token_is_not_written_on_every_request(client, anon_client, app, db):
    token = await create(client)
    headers = {"X-API-Key": token["token"]}
    for _ in range(5):
        assert (await anon_client.get("/plugins", headers=headers)).status_code == 200
    await app.state.token_auth.drain()
    first = {t.id: t for t in await rows(db)}[token["id"]]
    assert first.last_used_at is not None and first.last_used_ip == "127.0.0.1"
    for _ in range(20):
        await anon_client.get("/plugins", headers=headers)
    await app.state.token_auth.drain()
    later = {t.id: t for t in await rows(db)}[token["id"]]
    assert later.last_used_at == first.last_used_at  # within the window: no write


@pytest.mark.parametrize("subsvc_settings_overrides", [{"TOKEN_USAGE_WRITE_SECONDS": 0}])
async def test_usage_is_written_each_time_when_the_window_is_zero(client, app, db):
    await client.get("/plugins")
    await app.state.token_auth.drain()
    (first,) = await rows(db)
    await asyncio.sleep(0.01)
    await client.get("/plugins")
    await app.state.token_auth.drain()
    (second,) = await rows(db)
    assert second.last_used_at > first.last_used_at


async def test_verified_token_is_not_read_from_the_database_again(client, app, db):
    """Within TOKEN_CACHE_SECONDS the database is not consulted: a row changed behind the
    service's back is not seen, while a change through the API is (it invalidates)."""
    token = await create(client)
    headers = {"X-API-Key": token["token"]}
    assert (await client.get("/plugins", headers=headers)).status_code == 200
    async with db.session() as session:
        row = await session.get(ApiToken, token["id"])
        row.is_active = False
        await session.commit()
    assert (await client.get("/plugins", headers=headers)).status_code == 200
    await client.post(f"/tokens/{token['id']}/revoke")
    assert (await client.get("/plugins", headers=headers)).status_code == 401


@pytest.mark.parametrize("subsvc_settings_overrides", [{"WEB_API_TOKEN_HMAC_SECRET": "pepper"}])
async def test_hmac_hashing_and_upgrade_of_legacy_rows(client, anon_client, db):
    token = await create(client)
    stored = {t.id: t for t in await rows(db)}[token["id"]]
    assert stored.token_hash == hash_token(token["token"], "pepper")
    assert stored.token_hash != hashlib.sha256(token["token"].encode()).hexdigest()
    # a row stored before the secret was configured still works and is re-hashed
    legacy_plain = "legacy-token-value-0123456789"
    async with db.session() as session:
        session.add(
            ApiToken(
                name="old",
                token_hash=hashlib.sha256(legacy_plain.encode()).hexdigest(),
                token_prefix=legacy_plain[:8],
            )
        )
        await session.commit()
    assert (await anon_client.get("/tokens", headers={"X-API-Key": legacy_plain})).status_code == 200
    old = next(t for t in await rows(db) if t.name == "old")
    assert old.token_hash == hash_token(legacy_plain, "pepper")


async def test_processes_starting_at_once_ensure_one_bootstrap_token(app, db):
    """`serve --workers N` starts its processes together: each ensures the bootstrap row;
    one inserts it, the others find it (a unique conflict is not a failed start)."""
    async with db.session() as session:
        for token in await rows(db):
            await session.delete(await session.get(ApiToken, token.id))
        await session.commit()

    async def start_up() -> int | None:
        async with db.session() as session:
            token = await ensure_bootstrap(session, app.state.settings)
            await session.commit()
            return None if token is None else token.id

    ids = await asyncio.gather(*(start_up() for _ in range(8)))
    (boot,) = await rows(db)
    assert ids == [boot.id] * 8
