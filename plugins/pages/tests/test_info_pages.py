"""Info pages: `/cabinet/admin/info-pages` (tag Cabinet Admin Info Pages, `info_pages:*`) and
the public `/cabinet/info-pages` (tag Cabinet Info Pages)."""

from __future__ import annotations

import asyncio

ADMIN, PUBLIC = "/cabinet/admin/info-pages", "/cabinet/info-pages"


async def create(admin, slug: str, **fields) -> dict:
    r = await admin.post(ADMIN, json={"slug": slug, **fields})
    assert r.status_code == 201, r.text
    return r.json()


async def test_create_read_update_delete(admin, utc_time):
    page = await create(
        admin,
        "how-to",
        title={"ru": "Как", "en-US": "How"},
        content={"ru": "Текст"},
        icon="book",
        sort_order=3,
    )
    assert {k: v for k, v in page.items() if k not in ("id", "created_at", "updated_at")} == {
        "slug": "how-to",
        "title": {"ru": "Как", "en": "How"},
        "content": {"ru": "Текст"},
        "page_type": "page",
        "is_active": True,
        "sort_order": 3,
        "icon": "book",
        "replaces_tab": None,
        "display_mode": "both",
    }
    utc_time(page["created_at"])
    detail = await admin.get(f"{ADMIN}/{page['id']}")
    assert detail.json() == page
    updated = await admin.put(
        f"{ADMIN}/{page['id']}",
        json={"title": {"en": "Guide"}, "icon": None, "page_type": None, "slug": "guide"},
    )
    body = updated.json()
    assert (body["slug"], body["title"], body["icon"], body["page_type"]) == (
        "guide",
        {"en": "Guide"},
        None,
        "page",
    )
    assert utc_time(body["updated_at"]) >= utc_time(page["updated_at"])
    assert (await admin.delete(f"{ADMIN}/{page['id']}")).status_code == 204
    for answer in (
        await admin.get(f"{ADMIN}/{page['id']}"),
        await admin.put(f"{ADMIN}/{page['id']}", json={}),
        await admin.delete(f"{ADMIN}/{page['id']}"),
        await admin.post(f"{ADMIN}/{page['id']}/toggle-active"),
    ):
        assert (answer.status_code, answer.json()) == (404, {"detail": "Info page not found"})


async def test_slugs_are_unique(admin):
    first = await create(admin, "faq-page")
    other = await create(admin, "other")
    again = await admin.post(ADMIN, json={"slug": "faq-page"})
    renamed = await admin.put(f"{ADMIN}/{other['id']}", json={"slug": "faq-page"})
    racing = await asyncio.gather(*(admin.post(ADMIN, json={"slug": "race"}) for _ in range(3)))
    detail = {"detail": "Info page with slug 'faq-page' already exists"}
    assert (again.status_code, again.json()) == (409, detail)
    assert (renamed.status_code, renamed.json()) == (409, detail)
    assert sorted(r.status_code for r in racing) == [201, 409, 409]
    assert (await admin.get(f"{ADMIN}/{first['id']}")).json()["slug"] == "faq-page"


async def test_input_is_validated(admin):
    answers = [
        await admin.post(ADMIN, json={"slug": "Bad Slug"}),
        await admin.post(ADMIN, json={}),
        await admin.post(ADMIN, json={"slug": "a", "page_type": "news"}),
        await admin.post(ADMIN, json={"slug": "a", "replaces_tab": "home"}),
        await admin.post(ADMIN, json={"slug": "a", "display_mode": "app"}),
        await admin.post(ADMIN, json={"slug": "a", "icon": "x" * 51}),
        await admin.post(f"{ADMIN}/reorder", json={"items": []}),
        await admin.get(f"{ADMIN}?page_type=news"),
    ]
    assert [a.status_code for a in answers] == [422] * 8


async def test_order_reorder_and_toggle(admin):
    a = await create(admin, "a", sort_order=2)
    b = await create(admin, "b", sort_order=1, page_type="faq")
    c = await create(admin, "c", sort_order=1)
    listed = (await admin.get(ADMIN)).json()
    assert [p["slug"] for p in listed] == ["b", "c", "a"]
    assert "content" not in listed[0]
    assert [p["slug"] for p in (await admin.get(f"{ADMIN}?page_type=faq")).json()] == ["b"]
    reordered = await admin.post(f"{ADMIN}/reorder", json={"items": [{"id": a["id"], "sort_order": 0}]})
    assert reordered.status_code == 204
    assert [p["slug"] for p in (await admin.get(ADMIN)).json()] == ["a", "b", "c"]
    unknown = await admin.post(
        f"{ADMIN}/reorder",
        json={"items": [{"id": c["id"], "sort_order": 0}, {"id": 999999, "sort_order": 1}]},
    )
    assert (unknown.status_code, unknown.json()) == (404, {"detail": "Info page 999999 not found"})
    assert [p["slug"] for p in (await admin.get(ADMIN)).json()] == ["a", "b", "c"]  # nothing changed
    off = await admin.post(f"{ADMIN}/{b['id']}/toggle-active")
    on = await admin.post(f"{ADMIN}/{b['id']}/toggle-active")
    assert (off.json()["is_active"], on.json()["is_active"]) == (False, True)


async def test_the_public_sees_active_pages_shown_in_the_web(admin, anon_client):
    shown = await create(admin, "shown", title={"ru": "Видно"}, content={"ru": "Текст"}, replaces_tab="faq")
    await create(admin, "inactive", is_active=False, replaces_tab="rules")
    await create(admin, "bot-only", display_mode="bot", replaces_tab="privacy")
    await create(admin, "web-faq", display_mode="web", page_type="faq", sort_order=5, replaces_tab="faq")
    listed = (await anon_client.get(PUBLIC)).json()
    assert [p["slug"] for p in listed] == ["shown", "web-faq"]
    assert [p["slug"] for p in (await anon_client.get(f"{PUBLIC}?page_type=faq")).json()] == ["web-faq"]
    one = await anon_client.get(f"{PUBLIC}/shown")
    assert one.json() == (await admin.get(f"{ADMIN}/{shown['id']}")).json()
    for slug in ("inactive", "bot-only", "missing"):
        answer = await anon_client.get(f"{PUBLIC}/{slug}")
        assert (answer.status_code, answer.json()) == (404, {"detail": "Info page not found"})
    assert (await anon_client.get(f"{PUBLIC}/Bad_Slug")).status_code == 422
    replacements = (await anon_client.get(f"{PUBLIC}/tab-replacements")).json()
    assert replacements == {"faq": "shown", "rules": None, "privacy": None, "offer": None}


async def test_members_without_a_role_are_refused(member, anon_client):
    answers = [
        await member.get(ADMIN),
        await member.post(ADMIN, json={"slug": "x"}),
        await member.put(f"{ADMIN}/1", json={}),
        await member.delete(f"{ADMIN}/1"),
        await member.post(f"{ADMIN}/reorder", json={"items": [{"id": 1, "sort_order": 0}]}),
        await member.post(f"{ADMIN}/1/toggle-active"),
        await member.get(f"{ADMIN}/1"),
    ]
    assert [a.status_code for a in answers] == [403] * 7
    assert (await anon_client.get(ADMIN)).status_code == 401
