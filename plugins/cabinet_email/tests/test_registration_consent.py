"""`POST /cabinet/auth/email/register/standalone` of release 4.1.0: the legal documents a new
account must accept (428 otherwise) and its first campaign, recorded when the account is made
(at once, or when the mailed link comes back)."""

from __future__ import annotations

import pytest
from subsvc_cabinet_auth.api import FirstCampaign
from subsvc_pages.models import LegalConsent
from subsvc_pages.settings import PagesSettings
from subsvc_users.models import User

PASSWORD = "correct horse battery"
REGISTER = "/cabinet/auth/email/register/standalone"
VERIFY = "/cabinet/auth/email/verify"


@pytest.fixture
async def policy_required(client, change_settings) -> None:
    stored = await client.put("/pages/privacy-policy", json={"language": "en", "content": "Policy"})
    assert stored.status_code == 200, stored.text
    change_settings(PagesSettings, CABINET_REQUIRE_LEGAL_CONSENT=True)


async def test_consent_and_campaign_are_kept_until_the_link_comes_back(
    anon_client, smtp_sink, rows, policy_required
):
    body = {"email": "new@example.com", "password": PASSWORD, "language": "en", "campaign_slug": "promo_1"}
    refused = await anon_client.post(REGISTER, json=body)
    assert refused.status_code == 428
    detail = refused.json()["detail"]
    assert (detail["code"], detail["documents"], detail["missing"]) == (
        "legal_consent_required",
        ["privacy_policy"],
        ["privacy_policy"],
    )
    assert smtp_sink.messages == []

    registered = await anon_client.post(
        REGISTER, json={**body, "accepted_legal_documents": ["privacy_policy"]}
    )
    assert registered.status_code == 200, registered.text
    assert await rows(LegalConsent) == [] and await rows(FirstCampaign) == []

    verified = await anon_client.post(VERIFY, json={"token": smtp_sink.token("verify-email")})
    assert verified.status_code == 200, verified.text
    user_id = verified.json()["user"]["id"]
    (consent,) = await rows(LegalConsent)
    assert (consent.user_id, consent.document, consent.source) == (user_id, "privacy_policy", "email")
    assert consent.ip_address is not None
    (campaign,) = await rows(FirstCampaign)
    assert (campaign.user_id, campaign.campaign_slug, campaign.source) == (user_id, "promo_1", "email")


async def test_without_verification_they_are_recorded_at_once(anon_client, configure, rows, policy_required):
    configure(CABINET_EMAIL_VERIFICATION_ENABLED=False)
    registered = await anon_client.post(
        REGISTER,
        json={
            "email": "now@example.com",
            "password": PASSWORD,
            "language": "en",
            "campaign_slug": "summer",
            "accepted_legal_documents": ["privacy_policy"],
        },
    )
    assert registered.status_code == 200, registered.text
    (user,) = await rows(User)
    (consent,) = await rows(LegalConsent)
    (campaign,) = await rows(FirstCampaign)
    assert consent.user_id == campaign.user_id == user.id
    assert campaign.campaign_slug == "summer"


async def test_input_bounds_of_the_new_fields(anon_client):
    for extra in ({"campaign_slug": ""}, {"campaign_slug": "a b"}, {"accepted_legal_documents": ["x"] * 9}):
        response = await anon_client.post(
            REGISTER, json={"email": "a@example.com", "password": PASSWORD, **extra}
        )
        assert response.status_code == 422, extra
