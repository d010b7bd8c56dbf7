from pathlib import Path

from subsvc.testing_migrations import migrated_database


async def test_put_then_get(client):  # client: an httpx client with the API key
    r = await client.put("/hello", json={"language": "en", "text": "Hello"})
    assert r.status_code == 200
    assert (await client.get("/hello")).json() == {"language": "en", "text": "Hello"}


async def test_unknown_language_is_404(client):
    assert (await client.get("/hello", params={"language": "fr"})).status_code == 404


async def test_needs_a_key(anon_client):
    assert (await anon_client.get("/hello")).status_code == 401


def test_migration_round_trip(tmp_path: Path):
    with migrated_database(tmp_path, "hello") as db:
        db.round_trip("hello", head="hello_0001", tables={"hello_greetings"}, kept={"web_api_tokens"})
