"""Legal consent: `GET /cabinet/info/legal-consent` (public) and the public API the sign-ups
record acceptances with (`subsvc_pages.api.record_legal_consent`)."""

from __future__ import annotations

from subsvc_pages.api import legal_consent_config, record_legal_consent
from subsvc_pages.models import LegalConsent
from subsvc_pages.settings import PagesSettings

CONSENT = "/cabinet/info/legal-consent"
NOTHING = {"required": False, "prechecked": False, "documents": []}
OFFER, POLICY = "/cabinet/admin/legal-pages/public-offer", "/cabinet/admin/legal-pages/privacy-policy"


async def store(admin, path: str, language: str = "ru", content: str = "Текст", enabled: bool = True) -> None:
    body = {"items": [{"language": language, "content": content, "is_enabled": enabled}]}
    assert (await admin.put(path, json=body)).status_code == 200


async def test_nothing_is_required_unless_the_setting_says_so(admin, anon_client, change_settings):
    await store(admin, OFFER)
    assert (await anon_client.get(CONSENT)).json() == {
        "required": False,
        "prechecked": False,
        "documents": [],
    }
    change_settings(PagesSettings, CABINET_LEGAL_CONSENT_PRECHECKED=True)
    assert (await anon_client.get(CONSENT)).json()["prechecked"] is True


async def test_the_enabled_documents_shown_in_the_cabinet_are_required(admin, anon_client, change_settings):
    change_settings(PagesSettings, CABINET_REQUIRE_LEGAL_CONSENT=True)
    assert (await anon_client.get(CONSENT)).json() == {
        "required": False,
        "prechecked": False,
        "documents": [],
    }
    await store(admin, OFFER)
    await store(admin, POLICY, language="en")
    ru = (await anon_client.get(CONSENT)).json()
    en = (await anon_client.get(f"{CONSENT}?language=en")).json()
    assert ru == {"required": True, "prechecked": False, "documents": ["public_offer"]}
    assert en["documents"] == ["public_offer", "privacy_policy"]  # the offer falls back to ru
    await store(admin, OFFER, enabled=False)
    await admin.put(POLICY, json={"display_mode": "bot"})
    assert (await anon_client.get(f"{CONSENT}?language=en")).json()["documents"] == []


async def test_the_api_answers_as_the_endpoint(app, db, admin, anon_client, change_settings):
    change_settings(PagesSettings, CABINET_REQUIRE_LEGAL_CONSENT=True)
    await store(admin, POLICY)
    async with db.session(read_only=True) as session:
        config = await legal_consent_config(app, session, "ru")
    assert config.model_dump() == (await anon_client.get(CONSENT)).json()


async def test_recording_is_idempotent_per_document_version(admin, api_user, db, rows, utc_time):
    user = await api_user()
    await store(admin, OFFER, content="v1")

    async def accept(*documents: str, **options) -> None:
        async with db.session() as session:
            await record_legal_consent(session, user["id"], documents, **options)
            await session.commit()

    await accept("public_offer", "PUBLIC_OFFER", "unknown", source="email", ip_address="10.0.0.1")
    await accept("public_offer")
    first = await rows(LegalConsent)
    assert [(r.user_id, r.document, r.language, r.source, r.ip_address) for r in first] == [
        (user["id"], "public_offer", "ru", "email", "10.0.0.1")
    ]
    offer = (await admin.get(OFFER)).json()["items"][0]
    assert first[0].version == utc_time(offer["updated_at"]).isoformat()

    await store(admin, OFFER, content="v2")  # a new version is accepted anew
    await accept("public_offer", "privacy_policy", language="en")
    documents = [(r.document, r.version != first[0].version) for r in await rows(LegalConsent)]
    assert documents == [("public_offer", False), ("public_offer", True), ("privacy_policy", True)]
    assert (await rows(LegalConsent, document="privacy_policy"))[0].version == "none"
