"""Service rules: versions per language, the active one, history, clearing and restoring."""

from __future__ import annotations

from datetime import timedelta

from subsvc_pages.models import ServiceRule

from subsvc.db import utcnow

RULES = "/pages/service-rules"


async def test_get_without_rules_is_404(client):
    r = await client.get(RULES)
    assert r.status_code == 404
    assert r.json() == {"detail": "Service rules not found"}


async def test_put_publishes_a_version_with_utc_timestamps(client, rows, utc_time):
    r = await client.put(RULES, json={"title": "Terms", "content": "Be nice."})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"id", "title", "content", "language", "is_active", "created_at", "updated_at"}
    assert body["title"] == "Terms"
    assert body["content"] == "Be nice."
    assert body["language"] == "ru"
    assert body["is_active"] is True
    assert utc_time(body["created_at"]) == utc_time(body["updated_at"])
    assert abs(utc_time(body["created_at"]) - utcnow()) < timedelta(minutes=1)

    stored = await rows(ServiceRule)
    assert [(s.id, s.language, s.is_active, s.title) for s in stored] == [(body["id"], "ru", True, "Terms")]
    assert stored[0].created_at.tzinfo is not None

    r = await client.get(RULES)
    assert r.status_code == 200
    assert r.json() == body


async def test_put_defaults_title_and_normalises_language(client, rows):
    r = await client.put(RULES, json={"language": "en-US", "content": "Rules"})
    assert r.status_code == 200
    assert r.json()["language"] == "en"
    assert r.json()["title"] == "Правила сервиса"

    r = await client.put(RULES, json={"language": "EN", "title": None, "content": "Rules 2"})
    assert r.json()["language"] == "en"
    assert r.json()["title"] == "Правила сервиса"
    assert {s.language for s in await rows(ServiceRule)} == {"en"}

    r = await client.get(RULES, params={"language": "en-GB", "fallback": "false"})
    assert r.status_code == 200
    assert r.json()["content"] == "Rules 2"


async def test_put_keeps_history_and_only_one_active_version(client, rows):
    first = (await client.put(RULES, json={"content": "v1"})).json()
    second = (await client.put(RULES, json={"content": "v2"})).json()
    third = (await client.put(RULES, json={"content": "v3"})).json()
    assert len({first["id"], second["id"], third["id"]}) == 3

    stored = await rows(ServiceRule, language="ru")
    assert [(s.content, s.is_active) for s in stored] == [("v1", False), ("v2", False), ("v3", True)]
    assert stored[0].updated_at > stored[0].created_at  # deactivation is a change

    r = await client.get(RULES)
    assert r.json()["id"] == third["id"]
    assert r.json()["content"] == "v3"


async def test_versions_of_other_languages_are_untouched(client, rows):
    await client.put(RULES, json={"language": "ru", "content": "ru rules"})
    await client.put(RULES, json={"language": "en", "content": "en rules"})
    await client.put(RULES, json={"language": "en", "content": "en rules 2"})

    assert [s.is_active for s in await rows(ServiceRule, language="ru")] == [True]
    r = await client.get(RULES, params={"language": "en"})
    assert (r.json()["language"], r.json()["content"]) == ("en", "en rules 2")
    r = await client.get(RULES, params={"language": "ru"})
    assert (r.json()["language"], r.json()["content"]) == ("ru", "ru rules")


async def test_fallback_to_default_language(client):
    await client.put(RULES, json={"content": "ru rules"})

    r = await client.get(RULES, params={"language": "de"})
    assert r.status_code == 200
    assert (r.json()["language"], r.json()["content"]) == ("ru", "ru rules")

    r = await client.get(RULES, params={"language": "de", "fallback": "false"})
    assert r.status_code == 404
    assert r.json() == {"detail": "Service rules not found"}


async def test_active_rule_is_lowest_order_then_newest(client, db):
    now = utcnow()

    def rule(content: str, order: int, age_minutes: int, active: bool = True) -> ServiceRule:
        created = now - timedelta(minutes=age_minutes)
        return ServiceRule(
            language="ru",
            title="t",
            content=content,
            order=order,
            is_active=active,
            created_at=created,
            updated_at=created,
        )

    async with db.session() as session:
        session.add_all(
            [
                rule("order 1, newest", 1, 0),
                rule("order 0, old", 0, 30),
                rule("order 0, newer", 0, 10),
                rule("inactive, order 0, newest", 0, 0, active=False),
            ]
        )
        await session.commit()

    r = await client.get(RULES)
    assert r.status_code == 200
    assert r.json()["content"] == "order 0, newer"


async def test_delete_deactivates_without_deleting(client, rows):
    await client.put(RULES, json={"content": "v1"})
    await client.put(RULES, json={"content": "v2"})
    await client.put(RULES, json={"language": "en", "content": "en"})

    r = await client.delete(RULES)
    assert r.status_code == 204
    assert r.content == b""
    assert [s.is_active for s in await rows(ServiceRule, language="ru")] == [False, False]
    assert [s.is_active for s in await rows(ServiceRule, language="en")] == [True]

    r = await client.get(RULES, params={"fallback": "false"})
    assert r.status_code == 404

    r = await client.delete(RULES)  # nothing left to deactivate: still fine
    assert r.status_code == 204
    r = await client.delete(RULES, params={"language": "fr"})
    assert r.status_code == 204
    assert len(await rows(ServiceRule)) == 3


async def test_history_newest_first_with_total_and_limit(client):
    for n in range(1, 5):
        await client.put(RULES, json={"content": f"v{n}"})
    await client.put(RULES, json={"language": "en", "content": "en"})

    r = await client.get(f"{RULES}/history")
    assert r.status_code == 200
    body = r.json()
    assert body["language"] == "ru"
    assert body["total"] == 4
    assert [(i["content"], i["is_active"]) for i in body["items"]] == [
        ("v4", True),
        ("v3", False),
        ("v2", False),
        ("v1", False),
    ]

    r = await client.get(f"{RULES}/history", params={"limit": 2})
    assert r.json()["total"] == 4
    assert [i["content"] for i in r.json()["items"]] == ["v4", "v3"]

    r = await client.get(f"{RULES}/history", params={"language": "en-US"})
    assert (r.json()["language"], r.json()["total"]) == ("en", 1)

    r = await client.get(f"{RULES}/history", params={"language": "de"})
    assert r.json() == {"language": "de", "total": 0, "items": []}


async def test_history_limit_bounds(client):
    for limit, error in ((0, "greater_than_equal"), (101, "less_than_equal")):
        r = await client.get(f"{RULES}/history", params={"limit": limit})
        assert r.status_code == 422
        assert r.json()["detail"][0]["loc"] == ["query", "limit"]
        assert r.json()["detail"][0]["type"] == error
    r = await client.get(f"{RULES}/history", params={"limit": 100})
    assert r.status_code == 200


async def test_restore_copies_a_version_as_the_active_one(client, rows):
    v1 = (await client.put(RULES, json={"title": "Old", "content": "v1"})).json()
    await client.put(RULES, json={"title": "New", "content": "v2"})

    r = await client.post(f"{RULES}/history/{v1['id']}/restore")
    assert r.status_code == 201
    restored = r.json()
    assert restored["id"] != v1["id"]
    assert (restored["title"], restored["content"], restored["is_active"]) == ("Old", "v1", True)

    stored = await rows(ServiceRule, language="ru")
    assert [(s.content, s.is_active) for s in stored] == [("v1", False), ("v2", False), ("v1", True)]
    assert (await client.get(RULES)).json()["id"] == restored["id"]
    history = (await client.get(f"{RULES}/history")).json()
    assert history["total"] == 3
    assert history["items"][0]["id"] == restored["id"]


async def test_restore_unknown_version_or_other_language_is_404(client, rows):
    en = (await client.put(RULES, json={"language": "en", "content": "en"})).json()

    r = await client.post(f"{RULES}/history/{en['id']}/restore")  # language defaults to ru
    assert r.status_code == 404
    assert r.json() == {"detail": "Rules version not found"}
    r = await client.post(f"{RULES}/history/999999/restore", params={"language": "en"})
    assert r.status_code == 404
    assert r.json() == {"detail": "Rules version not found"}
    assert len(await rows(ServiceRule)) == 1

    r = await client.post(f"{RULES}/history/{en['id']}/restore", params={"language": "en-US"})
    assert r.status_code == 201
    assert r.json()["language"] == "en"
