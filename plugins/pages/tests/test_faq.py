"""FAQ: pages per language in display order, the per-language switch, reordering."""

from __future__ import annotations

import asyncio

from subsvc_pages.models import FaqPage, FaqSetting

FAQ = "/pages/faq"
PAGE_FIELDS = {
    "id",
    "language",
    "title",
    "content",
    "content_pages",
    "display_order",
    "is_active",
    "created_at",
    "updated_at",
}


def _pick(data: dict, *keys: str) -> tuple:
    return tuple(data[key] for key in keys)


async def _create(client, title: str, **fields):
    r = await client.post(FAQ, json={"title": title, "content": f"Answer to {title}", **fields})
    assert r.status_code == 201, r.text
    return r.json()


# --- pages -------------------------------------------------------------------------------------


async def test_create_page(client, rows, utc_time):
    r = await client.post(FAQ, json={"title": "How to pay?", "content": "By card.\n\nOr by balance."})
    assert r.status_code == 201
    page = r.json()
    assert set(page) == PAGE_FIELDS
    assert page["language"] == "ru"
    assert (page["title"], page["content"]) == ("How to pay?", "By card.\n\nOr by balance.")
    assert page["content_pages"] == ["By card.\n\nOr by balance."]
    assert (page["display_order"], page["is_active"]) == (1, True)
    assert utc_time(page["created_at"]) == utc_time(page["updated_at"])

    stored = await rows(FaqPage)
    assert [(s.id, s.language, s.title, s.display_order, s.is_active) for s in stored] == [
        (page["id"], "ru", "How to pay?", 1, True)
    ]


async def test_create_appends_after_the_last_page_of_the_language(client):
    assert (await _create(client, "a"))["display_order"] == 1
    assert (await _create(client, "b", display_order=10))["display_order"] == 10
    assert (await _create(client, "c"))["display_order"] == 11
    assert (await _create(client, "d", display_order=0))["display_order"] == 0
    assert (await _create(client, "e", language="en-US"))["display_order"] == 1  # per language


async def test_create_options_and_validation(client):
    page = await _create(client, "hidden", language="EN", is_active=False)
    assert (page["language"], page["is_active"]) == ("en", False)
    page = await _create(client, "null active", is_active=None)
    assert page["is_active"] is True

    r = await client.post(FAQ, json={"title": "", "content": "x"})
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert (item["loc"], item["type"]) == (["body", "title"], "string_too_short")
    r = await client.post(FAQ, json={"title": "x", "content": "x", "display_order": -1})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "display_order"]
    r = await client.post(FAQ, json={"content": "x"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "title"]


async def test_list_in_display_order_with_filters(client):
    c = await _create(client, "c", display_order=3)
    a = await _create(client, "a", display_order=1)
    b = await _create(client, "b", display_order=2, is_active=False)
    await _create(client, "other language", language="en")

    r = await client.get(FAQ)
    assert r.status_code == 200
    body = r.json()
    assert _pick(body, "requested_language", "language", "is_enabled", "total") == ("ru", "ru", True, 3)
    assert [p["id"] for p in body["items"]] == [a["id"], b["id"], c["id"]]
    assert set(body["items"][0]) == PAGE_FIELDS

    r = await client.get(FAQ, params={"include_inactive": "false"})
    assert [p["id"] for p in r.json()["items"]] == [a["id"], c["id"]]
    assert r.json()["total"] == 2


async def test_list_fallback(client):
    ru = await _create(client, "ru page")

    r = await client.get(FAQ, params={"language": "de-AT"})
    body = r.json()
    assert (body["requested_language"], body["language"], body["total"]) == ("de", "ru", 1)
    assert [p["id"] for p in body["items"]] == [ru["id"]]

    r = await client.get(FAQ, params={"language": "de", "fallback": "false"})
    assert r.json() == {
        "requested_language": "de",
        "language": "de",
        "is_enabled": True,
        "total": 0,
        "items": [],
    }

    en = await _create(client, "en page", language="en")
    r = await client.get(FAQ, params={"language": "en"})
    assert (r.json()["language"], [p["id"] for p in r.json()["items"]]) == ("en", [en["id"]])


async def test_get_page(client):
    page = await _create(client, "q")
    hidden = await _create(client, "hidden", is_active=False)
    en = await _create(client, "en", language="en")

    r = await client.get(f"{FAQ}/{page['id']}")
    assert r.status_code == 200
    assert r.json() == page
    r = await client.get(f"{FAQ}/{page['id']}", params={"language": "en"})  # default-language page
    assert r.status_code == 200
    r = await client.get(f"{FAQ}/{en['id']}", params={"language": "en-US"})
    assert (r.status_code, r.json()["title"]) == (200, "en")

    r = await client.get(f"{FAQ}/{hidden['id']}")
    assert (r.status_code, r.json()["is_active"]) == (200, False)
    for path, params in (
        (f"{FAQ}/{hidden['id']}", {"include_inactive": "false"}),
        (f"{FAQ}/{en['id']}", {}),  # an English page is not a Russian one
        (f"{FAQ}/999999", {}),
    ):
        r = await client.get(path, params=params)
        assert r.status_code == 404
        assert r.json() == {"detail": "FAQ page not found"}


async def test_update_page(client, rows, utc_time):
    page = await _create(client, "old title", display_order=5)

    r = await client.put(f"{FAQ}/{page['id']}", json={"title": "new title", "content": None})
    assert r.status_code == 200
    body = r.json()
    assert _pick(body, "title", "content") == ("new title", page["content"])  # null leaves content as is
    assert _pick(body, "display_order", "is_active") == (5, True)
    assert body["created_at"] == page["created_at"]
    assert utc_time(body["updated_at"]) > utc_time(page["updated_at"])

    r = await client.put(
        f"{FAQ}/{page['id']}", json={"content": "new answer", "display_order": 0, "is_active": False}
    )
    assert (r.json()["content"], r.json()["display_order"], r.json()["is_active"]) == ("new answer", 0, False)
    assert r.json()["content_pages"] == ["new answer"]

    stored = (await rows(FaqPage))[0]
    assert (stored.title, stored.content, stored.display_order) == ("new title", "new answer", 0)
    assert stored.is_active is False

    r = await client.put(f"{FAQ}/999999", json={"title": "x"})
    assert r.status_code == 404
    assert r.json() == {"detail": "FAQ page not found"}
    r = await client.put(f"{FAQ}/{page['id']}", json={"title": "x" * 256})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "title"]


async def test_delete_page(client, rows):
    page = await _create(client, "gone")
    kept = await _create(client, "kept")

    r = await client.delete(f"{FAQ}/{page['id']}")
    assert r.status_code == 204
    assert r.content == b""
    assert [s.id for s in await rows(FaqPage)] == [kept["id"]]

    r = await client.get(f"{FAQ}/{page['id']}")
    assert r.status_code == 404
    r = await client.delete(f"{FAQ}/{page['id']}")
    assert r.status_code == 404
    assert r.json() == {"detail": "FAQ page not found"}


# --- reorder -----------------------------------------------------------------------------------


async def test_reorder_appends_unspecified_pages_after(client, rows):
    a = await _create(client, "a")
    b = await _create(client, "b")
    c = await _create(client, "c")
    d = await _create(client, "d", is_active=False)
    en = await _create(client, "en", language="en")

    r = await client.post(
        f"{FAQ}/reorder",
        json={"items": [{"id": c["id"], "display_order": 0}, {"id": a["id"], "display_order": 1}]},
    )
    assert r.status_code == 200
    body = r.json()
    assert _pick(body, "requested_language", "language", "is_enabled", "total") == ("ru", "ru", True, 4)
    assert [(p["id"], p["display_order"]) for p in body["items"]] == [
        (c["id"], 0),
        (a["id"], 1),
        (b["id"], 2),
        (d["id"], 3),
    ]

    stored = {s.id: s.display_order for s in await rows(FaqPage)}
    assert stored == {a["id"]: 1, b["id"]: 2, c["id"]: 0, d["id"]: 3, en["id"]: 1}
    listed = (await client.get(FAQ)).json()["items"]
    assert [p["id"] for p in listed] == [c["id"], a["id"], b["id"], d["id"]]


async def test_reorder_unknown_or_foreign_page_is_404_and_changes_nothing(client, rows):
    a = await _create(client, "a")
    b = await _create(client, "b")
    en = await _create(client, "en", language="en")

    for page_id in (999999, en["id"]):
        r = await client.post(
            f"{FAQ}/reorder",
            json={
                "language": "ru",
                "items": [{"id": b["id"], "display_order": 0}, {"id": page_id, "display_order": 1}],
            },
        )
        assert r.status_code == 404
        assert r.json() == {"detail": f"FAQ page {page_id} not found for language ru"}
    assert {s.id: s.display_order for s in await rows(FaqPage)} == {a["id"]: 1, b["id"]: 2, en["id"]: 1}

    r = await client.post(
        f"{FAQ}/reorder", json={"language": "en-US", "items": [{"id": a["id"], "display_order": 0}]}
    )
    assert r.status_code == 404
    assert r.json() == {"detail": f"FAQ page {a['id']} not found for language en"}


async def test_reorder_validation(client):
    r = await client.post(f"{FAQ}/reorder", json={"items": [{"id": 0, "display_order": 0}]})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "items", 0, "id"]
    r = await client.post(f"{FAQ}/reorder", json={"language": "ru"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "items"]


# --- the FAQ switch ------------------------------------------------------------------------------


async def test_status_defaults_to_enabled(client, rows):
    r = await client.get(f"{FAQ}/status", params={"language": "en-US"})
    assert r.status_code == 200
    assert r.json() == {"requested_language": "en", "language": "en", "is_enabled": True}
    assert await rows(FaqSetting) == []


async def test_status_put_with_body(client, rows):
    r = await client.put(f"{FAQ}/status", json={"language": "en-US", "is_enabled": False})
    assert r.status_code == 200
    assert r.json() == {"requested_language": "en", "language": "en", "is_enabled": False}

    r = await client.put(f"{FAQ}/status", json={"language": "en", "is_enabled": True})
    assert r.json()["is_enabled"] is True
    r = await client.put(f"{FAQ}/status", json={"language": "en", "is_enabled": False})
    settings = await rows(FaqSetting)
    assert [(s.language, s.is_enabled) for s in settings] == [("en", False)]  # one row, upserted

    r = await client.get(f"{FAQ}/status", params={"language": "en"})
    assert r.json() == {"requested_language": "en", "language": "en", "is_enabled": False}
    r = await client.get(FAQ, params={"language": "en"})
    assert r.json()["is_enabled"] is False


async def test_status_put_with_query(client, rows):
    r = await client.put(f"{FAQ}/status", params={"is_enabled": "false"})
    assert r.status_code == 200
    assert r.json() == {"requested_language": "ru", "language": "ru", "is_enabled": False}

    r = await client.put(f"{FAQ}/status", params={"language": "de-DE", "is_enabled": "true"})
    assert r.json() == {"requested_language": "de", "language": "de", "is_enabled": True}
    assert {(s.language, s.is_enabled) for s in await rows(FaqSetting)} == {("ru", False), ("de", True)}


async def test_status_body_wins_over_query(client):
    r = await client.put(
        f"{FAQ}/status",
        params={"language": "de", "is_enabled": "true"},
        json={"language": "fr", "is_enabled": False},
    )
    assert r.json() == {"requested_language": "fr", "language": "fr", "is_enabled": False}


async def test_status_put_without_is_enabled_is_400(client, rows):
    for kwargs in (
        {},
        {"params": {"language": "en"}},
        {"content": b"null", "headers": {"content-type": "application/json"}},
    ):
        r = await client.put(f"{FAQ}/status", **kwargs)
        assert r.status_code == 400
        assert r.json() == {"detail": "Parameter 'is_enabled' is required"}
    assert await rows(FaqSetting) == []

    r = await client.put(f"{FAQ}/status", json={"language": "en"})  # a body must carry is_enabled
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "is_enabled"]


async def test_status_fallback(client):
    await client.put(f"{FAQ}/status", json={"is_enabled": False})

    r = await client.get(f"{FAQ}/status", params={"language": "de"})
    assert r.json() == {"requested_language": "de", "language": "ru", "is_enabled": False}
    r = await client.get(f"{FAQ}/status", params={"language": "de", "fallback": "false"})
    assert r.json() == {"requested_language": "de", "language": "de", "is_enabled": True}


async def test_concurrent_status_writes_make_one_row(client, rows):
    responses = await asyncio.gather(
        *(client.put(f"{FAQ}/status", json={"language": "en", "is_enabled": n % 2 == 0}) for n in range(6))
    )
    assert [r.status_code for r in responses] == [200] * 6
    assert len(await rows(FaqSetting, language="en")) == 1
