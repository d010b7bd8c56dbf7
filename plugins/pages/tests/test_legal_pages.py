"""`/cabinet/admin/legal-pages` (tag Cabinet Admin Legal Pages): every language's documents
and their display modes; permissions `info_pages:*`."""

from __future__ import annotations

import pytest
from subsvc_pages.models import ServiceRule
from subsvc_pages.settings import PagesSettings

BASE = "/cabinet/admin/legal-pages"
DOCUMENTS = ["privacy-policy", "public-offer", "recurrent-payments"]


@pytest.mark.parametrize("document", DOCUMENTS)
async def test_a_document_of_every_language(admin, document, utc_time):
    empty = await admin.get(f"{BASE}/{document}")
    assert empty.json() == {"display_mode": "both", "display_mode_env_locked": False, "items": []}
    body = {
        "display_mode": "web",
        "items": [
            {"language": "en-US", "content": "EN"},
            {"language": "ru", "content": "RU", "is_enabled": False},
        ],
    }
    saved = await admin.put(f"{BASE}/{document}", json=body)
    again = await admin.put(f"{BASE}/{document}", json={"items": [{"language": "en", "content": "EN 2"}]})
    read = (await admin.get(f"{BASE}/{document}")).json()
    assert saved.status_code == 200
    assert [(i["language"], i["content"], i["is_enabled"]) for i in saved.json()["items"]] == [
        ("en", "EN", True),
        ("ru", "RU", False),
    ]
    assert again.json() == read
    assert read["display_mode"] == "web"
    assert [(i["language"], i["content"]) for i in read["items"]] == [("en", "EN 2"), ("ru", "RU")]
    utc_time(read["items"][0]["updated_at"])


@pytest.mark.parametrize("document", [*DOCUMENTS, "rules", "faq"])
async def test_a_display_mode_the_environment_fixes(admin, change_settings, document):
    setting = {
        "privacy-policy": "PRIVACY_POLICY_DISPLAY_MODE",
        "public-offer": "PUBLIC_OFFER_DISPLAY_MODE",
        "recurrent-payments": "RECURRENT_PAYMENTS_DISPLAY_MODE",
        "rules": "SERVICE_RULES_DISPLAY_MODE",
        "faq": "FAQ_DISPLAY_MODE",
    }[document]
    change_settings(PagesSettings, **{setting: "bot"})
    read = (await admin.get(f"{BASE}/{document}")).json()
    same = await admin.put(f"{BASE}/{document}", json={"display_mode": "bot"})
    other = await admin.put(f"{BASE}/{document}", json={"display_mode": "web"})
    bad = await admin.put(f"{BASE}/{document}", json={"display_mode": "app"})
    assert (read["display_mode"], read["display_mode_env_locked"]) == ("bot", True)
    assert same.status_code == 200
    assert (other.status_code, other.json()) == (400, {"detail": f"Display mode is fixed by {setting}=bot"})
    assert bad.status_code == 422


async def test_rules_publish_a_version_only_when_changed(admin, client, rows):
    first = await admin.put(f"{BASE}/rules", json={"items": [{"language": "ru", "content": "A"}]})
    await admin.put(f"{BASE}/rules", json={"items": [{"language": "ru", "content": "A"}]})
    await admin.put(f"{BASE}/rules", json={"items": [{"language": "en", "content": "E"}, {"language": "ru"}]})
    read = (await admin.get(f"{BASE}/rules")).json()
    assert first.json()["items"][0]["content"] == "A"
    assert [(i["language"], i["content"]) for i in read["items"]] == [("en", "E"), ("ru", "")]
    assert [(r.language, r.content, r.is_active) for r in await rows(ServiceRule)] == [
        ("ru", "A", False),
        ("en", "E", True),
        ("ru", "", True),
    ]
    history = (await client.get("/pages/service-rules/history")).json()
    assert history["total"] == 2  # the Web API's history keeps the versions


async def test_faq_switches_and_pages(admin, utc_time):
    created = await admin.post(f"{BASE}/faq/pages", json={"language": "ru", "title": "Q", "content": "A"})
    second = await admin.post(f"{BASE}/faq/pages", json={"language": "ru", "title": "Q2", "is_active": False})
    page = created.json()
    assert created.status_code == 201
    assert {k: page[k] for k in ("language", "title", "content", "display_order", "is_active")} == {
        "language": "ru",
        "title": "Q",
        "content": "A",
        "display_order": 1,
        "is_active": True,
    }
    utc_time(page["updated_at"])
    assert second.json()["display_order"] == 2
    updated = await admin.put(f"{BASE}/faq/pages/{page['id']}", json={"title": "Q!", "content": None})
    assert (updated.json()["title"], updated.json()["content"]) == ("Q!", "A")
    saved = await admin.put(
        f"{BASE}/faq", json={"display_mode": "web", "settings": [{"language": "en", "is_enabled": False}]}
    )
    read = (await admin.get(f"{BASE}/faq")).json()
    assert saved.json() == read
    assert (read["display_mode"], read["settings"]) == ("web", [{"language": "en", "is_enabled": False}])
    assert [p["title"] for p in read["pages"]] == ["Q!", "Q2"]
    deleted = await admin.delete(f"{BASE}/faq/pages/{page['id']}")
    gone = await admin.delete(f"{BASE}/faq/pages/{page['id']}")
    missing = await admin.put(f"{BASE}/faq/pages/{page['id']}", json={"title": "x"})
    assert deleted.status_code == 204
    assert (gone.status_code, gone.json()) == (404, {"detail": "FAQ page not found"})
    assert missing.status_code == 404
    assert [p["title"] for p in (await admin.get(f"{BASE}/faq")).json()["pages"]] == ["Q2"]


async def test_faq_page_input_is_validated(admin):
    answers = [
        await admin.post(f"{BASE}/faq/pages", json={"language": "ru", "title": ""}),
        await admin.post(f"{BASE}/faq/pages", json={"title": "T"}),
        await admin.post(f"{BASE}/faq/pages", json={"language": "ru", "title": "T", "display_order": -1}),
        await admin.put(f"{BASE}/faq", json={"settings": [{"language": "ru"}]}),
    ]
    assert [a.status_code for a in answers] == [422] * 4


async def test_members_without_a_role_are_refused(member, anon_client):
    answers = [
        await member.get(f"{BASE}/public-offer"),
        await member.put(f"{BASE}/rules", json={}),
        await member.post(f"{BASE}/faq/pages", json={"language": "ru", "title": "T"}),
        await member.delete(f"{BASE}/faq/pages/1"),
    ]
    assert [a.status_code for a in answers] == [403] * 4
    assert (await anon_client.get(f"{BASE}/faq")).status_code == 401
