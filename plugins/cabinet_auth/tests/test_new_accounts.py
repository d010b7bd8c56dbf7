"""What a login that makes an account brings (release 4.1.0): the legal documents it must
accept (`accepted_legal_documents`, 428 otherwise) and its first-touch campaign
(`campaign_slug`); and `GET /cabinet/public/site-verification`."""

from __future__ import annotations

import pytest
from subsvc_cabinet_auth.models import FirstCampaign
from subsvc_cabinet_auth.settings import CabinetAuthSettings
from subsvc_pages.models import LegalConsent
from subsvc_pages.settings import PagesSettings
from subsvc_users.models import User

MESSENGER, WIDGET = "/cabinet/auth/messenger", "/cabinet/auth/messenger/widget"
REQUEST, POLL, CONFIRM = (
    "/cabinet/auth/deeplink/request",
    "/cabinet/auth/deeplink/poll",
    "/auth/deeplink/confirm",
)
ANN = {"id": 4242, "first_name": "Ann", "username": "ann", "language_code": "en"}


@pytest.fixture
async def offer_required(client, change_settings) -> None:
    """A stored public offer that new accounts must accept."""
    stored = await client.put("/pages/public-offer", json={"language": "ru", "content": "Оферта"})
    assert stored.status_code == 200, stored.text
    change_settings(PagesSettings, CABINET_REQUIRE_LEGAL_CONSENT=True)


async def test_a_new_account_must_accept_the_required_documents(
    anon_client, sign_init_data, offer_required, rows
):
    refused = await anon_client.post(MESSENGER, json={"init_data": sign_init_data(ANN)})
    assert refused.status_code == 428
    assert refused.json() == {
        "detail": {
            "code": "legal_consent_required",
            "message": "Please accept the legal documents to create an account: public_offer",
            "documents": ["public_offer"],
            "missing": ["public_offer"],
            "prechecked": False,
        }
    }
    assert await rows(User) == []

    accepted = await anon_client.post(
        MESSENGER,
        json={"init_data": sign_init_data(ANN), "accepted_legal_documents": ["public_offer", "other"]},
        headers={"X-Forwarded-For": "203.0.113.9"},
    )
    assert accepted.status_code == 200, accepted.text
    user_id = accepted.json()["user"]["id"]
    (consent,) = await rows(LegalConsent)
    assert (consent.user_id, consent.document, consent.source) == (user_id, "public_offer", "messenger")
    assert consent.ip_address is not None

    # an existing account logs in without accepting anything again
    again = await anon_client.post(MESSENGER, json={"init_data": sign_init_data(ANN)})
    assert again.status_code == 200 and again.json()["user"]["id"] == user_id
    assert len(await rows(LegalConsent)) == 1


async def test_nothing_is_asked_unless_required(anon_client, sign_init_data, rows):
    response = await anon_client.post(MESSENGER, json={"init_data": sign_init_data(ANN)})
    assert response.status_code == 200
    assert await rows(LegalConsent) == []


async def test_the_widget_does_not_sign_the_accepted_documents(
    anon_client, sign_widget, offer_required, rows
):
    fields = sign_widget(777)
    response = await anon_client.post(
        WIDGET, json={**fields, "accepted_legal_documents": ["public_offer"], "campaign_slug": "spring"}
    )
    assert response.status_code == 200, response.text
    (consent,) = await rows(LegalConsent)
    assert consent.source == "widget"
    (campaign,) = await rows(FirstCampaign)
    assert (campaign.campaign_slug, campaign.source) == ("spring", "widget")


async def test_the_first_campaign_of_a_new_account_wins(anon_client, sign_init_data, rows):
    first = await anon_client.post(
        MESSENGER, json={"init_data": sign_init_data(ANN), "campaign_slug": "first"}
    )
    again = await anon_client.post(
        MESSENGER, json={"init_data": sign_init_data(ANN), "campaign_slug": "later"}
    )
    assert first.status_code == again.status_code == 200
    (campaign,) = await rows(FirstCampaign)
    assert (campaign.user_id, campaign.campaign_slug, campaign.source) == (
        first.json()["user"]["id"],
        "first",
        "messenger",
    )
    bad = await anon_client.post(MESSENGER, json={"init_data": sign_init_data(ANN), "campaign_slug": "a b"})
    assert bad.status_code == 422
    many = await anon_client.post(
        MESSENGER, json={"init_data": sign_init_data(ANN), "accepted_legal_documents": ["x"] * 9}
    )
    assert many.status_code == 422


async def test_deep_link_attributes_an_account_made_during_the_login(
    anon_client, client, insert_user, rows, change_settings
):
    change_settings(CabinetAuthSettings, BOT_USERNAME="subsvc_test_bot")
    old = await insert_user(messenger_id=8001)
    for messenger_id in (8001, 8002):
        token = (await anon_client.post(REQUEST)).json()["token"]
        if messenger_id == 8002:
            await insert_user(messenger_id=8002)  # the bot made the account after the request
        confirmed = await client.post(CONFIRM, json={"token": token, "messenger_id": messenger_id})
        assert confirmed.status_code == 200, confirmed.text
        polled = await anon_client.post(POLL, json={"token": token, "campaign_slug": "autumn"})
        assert polled.status_code == 200, polled.text
    (campaign,) = await rows(FirstCampaign)
    assert campaign.user_id != old.id
    assert (campaign.campaign_slug, campaign.source) == ("autumn", "deep_link")


async def test_site_verification_answers_the_configured_tokens(anon_client, change_settings):
    path = "/cabinet/public/site-verification"
    assert (await anon_client.get(path)).json() == {}
    change_settings(CabinetAuthSettings, CABINET_SITE_VERIFICATION={"yandex-verification": "abc123"})
    response = await anon_client.get(path)
    assert response.status_code == 200
    assert response.json() == {"yandex-verification": "abc123"}
