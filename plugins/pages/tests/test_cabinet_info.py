"""`/cabinet/info` (tag Cabinet Info): the documents as the cabinet shows them, by display mode,
with the default-language fallback; the service, the languages, the user's language and what
is shown."""

from __future__ import annotations

import pytest
from subsvc_pages.documents import DEFAULT_PRIVACY_POLICY, DEFAULT_PUBLIC_OFFER, DEFAULT_RULES
from subsvc_pages.settings import PagesSettings

INFO = "/cabinet/info"
RECURRENT = f"{INFO}/recurrent-payments"


async def faq_page(admin, **fields) -> dict:
    r = await admin.post(
        "/cabinet/admin/legal-pages/faq/pages", json={"language": "ru", "title": "T", **fields}
    )
    assert r.status_code == 201, r.text
    return r.json()


async def test_the_documents_are_public_with_built_in_texts(anon_client):
    rules = await anon_client.get(f"{INFO}/rules")
    policy = await anon_client.get(f"{INFO}/privacy-policy?language=en-US")
    offer = await anon_client.get(f"{INFO}/public-offer")
    faq = await anon_client.get(f"{INFO}/faq")
    assert (rules.status_code, rules.json()) == (200, {"content": DEFAULT_RULES, "updated_at": None})
    assert policy.json() == {"content": DEFAULT_PRIVACY_POLICY, "updated_at": None}
    assert offer.json() == {"content": DEFAULT_PUBLIC_OFFER, "updated_at": None}
    assert (faq.status_code, faq.json()) == (200, [])


async def test_stored_texts_with_the_default_language_fallback(admin, anon_client, utc_time):
    await admin.put(
        "/cabinet/admin/legal-pages/privacy-policy",
        json={"items": [{"language": "ru", "content": "Политика"}, {"language": "en", "content": "Policy"}]},
    )
    await admin.put(
        "/cabinet/admin/legal-pages/rules", json={"items": [{"language": "ru", "content": "Правила"}]}
    )
    en = (await anon_client.get(f"{INFO}/privacy-policy?language=en")).json()
    de = (await anon_client.get(f"{INFO}/privacy-policy?language=de")).json()
    rules = (await anon_client.get(f"{INFO}/rules?language=en")).json()
    assert en["content"] == "Policy"
    assert de["content"] == "Политика"
    assert rules["content"] == "Правила"
    utc_time(en["updated_at"])
    utc_time(rules["updated_at"])


async def test_a_disabled_document_is_not_available(admin, anon_client):
    r = await admin.put(
        "/cabinet/admin/legal-pages/public-offer",
        json={"items": [{"language": "ru", "content": "Оферта", "is_enabled": False}]},
    )
    assert r.status_code == 200
    offer = await anon_client.get(f"{INFO}/public-offer")
    assert (offer.status_code, offer.json()) == (404, {"detail": "Public offer is not available"})


@pytest.mark.parametrize(
    ("document", "path", "detail"),
    [
        ("rules", "rules", "Rules are not available"),
        ("privacy-policy", "privacy-policy", "Privacy policy is not available"),
        ("public-offer", "public-offer", "Public offer is not available"),
        ("recurrent-payments", "recurrent-payments", "Recurring-payments document is not available"),
    ],
)
async def test_a_document_shown_only_in_the_bot_is_404(admin, anon_client, document, path, detail):
    r = await admin.put(f"/cabinet/admin/legal-pages/{document}", json={"display_mode": "bot"})
    assert (r.status_code, r.json()["display_mode"]) == (200, "bot")
    answer = await anon_client.get(f"{INFO}/{path}")
    assert (answer.status_code, answer.json()) == (404, {"detail": detail})


async def test_faq_pages_by_language_and_display_mode(admin, anon_client):
    first = await faq_page(admin, title="Q1", content="A1")
    await faq_page(admin, title="Q0", content="A0", display_order=0)
    hidden = await faq_page(admin, title="off", is_active=False)
    english = await faq_page(admin, language="en", title="EN")
    ru = (await anon_client.get(f"{INFO}/faq")).json()
    de = (await anon_client.get(f"{INFO}/faq?language=de")).json()
    en = (await anon_client.get(f"{INFO}/faq?language=en")).json()
    assert [(p["title"], p["order"]) for p in ru] == [("Q0", 0), ("Q1", 1)]
    assert de == ru
    assert [p["id"] for p in en] == [english["id"]]
    one = await anon_client.get(f"{INFO}/faq/{first['id']}")
    assert one.json() == {"id": first["id"], "title": "Q1", "content": "A1", "order": 1}
    inactive = await anon_client.get(f"{INFO}/faq/{hidden['id']}")
    missing = await anon_client.get(f"{INFO}/faq/999999")
    assert (inactive.status_code, inactive.json()) == (404, {"detail": "FAQ page not found"})
    assert missing.status_code == 404

    await admin.put(
        "/cabinet/admin/legal-pages/faq", json={"settings": [{"language": "ru", "is_enabled": False}]}
    )
    assert (await anon_client.get(f"{INFO}/faq")).json() == []  # switched off for the language
    await admin.put("/cabinet/admin/legal-pages/faq", json={"display_mode": "bot"})
    assert (await anon_client.get(f"{INFO}/faq?language=en")).json() == []
    unavailable = await anon_client.get(f"{INFO}/faq/{english['id']}?language=en")
    assert (unavailable.status_code, unavailable.json()) == (404, {"detail": "FAQ is not available"})


async def test_the_language_query_is_validated(anon_client):
    answers = [
        await anon_client.get(f"{INFO}/{path}?language=x") for path in ("faq", "rules", "legal-consent")
    ]
    assert [a.status_code for a in answers] == [422, 422, 422]


# --- the recurring-payments terms (moved from the recurrent plugin) --------------------------------


async def test_the_terms_without_a_text_are_404(anon_client):
    response = await anon_client.get(RECURRENT)
    assert (response.status_code, response.json()) == (
        404, {"detail": "Recurring-payments document is not available"}
    )  # fmt: skip


async def test_the_terms_from_the_environment_are_public_when_shown_in_the_cabinet(
    anon_client, change_settings
):
    change_settings(PagesSettings, RECURRENT_PAYMENTS_TEXT="<b>Автоплатёж</b>: условия")
    answer = await anon_client.get(f"{RECURRENT}?language=en")
    bad = await anon_client.get(f"{RECURRENT}?language=x")
    change_settings(PagesSettings, RECURRENT_PAYMENTS_DISPLAY_MODE="bot")
    hidden = await anon_client.get(RECURRENT)
    assert (answer.status_code, answer.json()) == (
        200,
        {"content": "<b>Автоплатёж</b>: условия", "updated_at": None},
    )
    assert bad.status_code == 422
    assert hidden.status_code == 404


async def test_stored_terms_per_language_win_over_the_environment(admin, anon_client, change_settings):
    change_settings(PagesSettings, RECURRENT_PAYMENTS_TEXT="env")
    await admin.put(
        "/cabinet/admin/legal-pages/recurrent-payments",
        json={"items": [{"language": "en", "content": "Terms"}]},
    )
    en = (await anon_client.get(f"{RECURRENT}?language=en")).json()
    ru = (await anon_client.get(RECURRENT)).json()
    assert en["content"] == "Terms" and en["updated_at"] is not None
    assert ru == {"content": "env", "updated_at": None}


# --- service, languages, the user's language ------------------------------------------------------


async def test_service_info_from_the_settings(anon_client, change_settings):
    assert (await anon_client.get(f"{INFO}/service")).json() == {
        "name": "VPN Service",
        "description": None,
        "support_email": None,
        "support_messenger": None,
        "website": None,
    }
    change_settings(
        PagesSettings,
        MINIAPP_SERVICE_NAME={"ru": "Сервис", "en": "Service"},
        MINIAPP_SERVICE_DESCRIPTION={"ru": "Описание"},
        SERVICE_SUPPORT_EMAIL="help@example.com",
        SERVICE_SUPPORT_MESSENGER="@help",
        SERVICE_WEBSITE_URL="https://example.com",
    )
    en = (await anon_client.get(f"{INFO}/service?language=en")).json()
    de = (await anon_client.get(f"{INFO}/service?language=de")).json()
    assert en == {
        "name": "Service",
        "description": "Описание",
        "support_email": "help@example.com",
        "support_messenger": "@help",
        "website": "https://example.com",
    }
    assert de["name"] == "Сервис"


async def test_languages_normalised_and_deduplicated(anon_client, change_settings):
    change_settings(PagesSettings, AVAILABLE_LANGUAGES="ru, en-US,EN,de")
    body = (await anon_client.get(f"{INFO}/languages")).json()
    assert body == {
        "languages": [
            {"code": "ru", "name": "Русский", "flag": "🇷🇺"},
            {"code": "en", "name": "English", "flag": "🇬🇧"},
            {"code": "de", "name": "DE", "flag": "🌐"},
        ],
        "default": "ru",
    }


async def test_the_users_language(api_user, cabinet, anon_client):
    user = await api_user()
    async with cabinet(user["id"]) as http:
        before = await http.get(f"{INFO}/user/language")
        changed = await http.patch(f"{INFO}/user/language", json={"language": "EN-us"})
        after = await http.get(f"{INFO}/user/language")
        invalid = await http.patch(f"{INFO}/user/language", json={"language": "de"})
        missing = await http.patch(f"{INFO}/user/language", json={})
        malformed = await http.patch(f"{INFO}/user/language", json={"language": 5})
    assert before.json() == {"language": "ru"}
    assert (changed.status_code, changed.json()) == (200, {"language": "en"})
    assert after.json() == {"language": "en"}
    assert (invalid.status_code, invalid.json()) == (400, {"detail": "Invalid language. Supported: ru, en"})
    assert missing.status_code == 400
    assert malformed.status_code == 422
    assert (await anon_client.get(f"{INFO}/user/language")).status_code == 401


async def test_a_deleted_users_language_is_404(cabinet):
    async with cabinet(999_999) as http:
        answer = await http.get(f"{INFO}/user/language")
    assert (answer.status_code, answer.json()) == (404, {"detail": "User not found"})


# --- visibility and display modes -------------------------------------------------------------------


async def test_visibility_follows_display_modes_and_texts(admin, anon_client, change_settings):
    shown = (await anon_client.get(f"{INFO}/visibility")).json()
    assert shown == {"faq": True, "rules": True, "privacy": True, "offer": True, "recurrent": False}
    await admin.put(
        "/cabinet/admin/legal-pages/recurrent-payments", json={"items": [{"language": "ru", "content": "T"}]}
    )
    await admin.put("/cabinet/admin/legal-pages/faq", json={"display_mode": "bot"})
    change_settings(PagesSettings, PUBLIC_OFFER_DISPLAY_MODE="bot")
    shown = (await anon_client.get(f"{INFO}/visibility")).json()
    assert shown == {"faq": False, "rules": True, "privacy": True, "offer": False, "recurrent": True}
