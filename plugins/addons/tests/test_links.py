"""The subscription's link: written back after the panel push, revoked in the panel (a new
one kept), offered plainly or as Happ's crypto link; the Happ downloads and the apps'
configuration from settings."""

from __future__ import annotations

import json

import pytest
from subsvc_subscriptions.models import Subscription

LINK = "/cabinet/subscription/connection-link"
REVOKE = "/cabinet/subscription/revoke"
STEPS = [
    "Copy the subscription link",
    "Open your VPN application",
    "Find 'Add subscription' or 'Import' option",
    "Paste the copied link",
]


async def pushed(client, make_user, fake_panel, wait_for, rows):
    """A user's subscription made through the Web API, once its panel push wrote its link."""
    user = await make_user()
    made = await client.post("/subscriptions", json={"user_id": user.id, "period_days": 30})
    assert made.status_code == 201, made.text

    async def linked():
        (row,) = await rows(Subscription, id=made.json()["id"])
        return row if row.subscription_url else None

    return user, await wait_for(linked)


async def test_the_link_comes_with_the_push(
    cabinet, client, make_user, fake_panel, wait_for, rows, subscriber
):
    early = await subscriber(account=False)
    async with cabinet(early.user.id) as http:
        missing = await http.get(LINK)
        assert (missing.status_code, missing.json()) == (
            404,
            {"detail": "Subscription link not yet generated"},
        )
    user, _ = await pushed(client, make_user, fake_panel, wait_for, rows)
    (account,) = fake_panel.users_of_messenger_id(user.messenger_id)
    async with cabinet(user.id) as http:
        found = await http.get(LINK)
    assert found.status_code == 200
    assert found.json() == {
        "subscription_url": account["subscriptionUrl"],
        "display_link": account["subscriptionUrl"],
        "happ_redirect_link": None,
        "happ_scheme_link": None,
        "happ_crypto_link": account["happ"]["cryptoLink"],
        "connect_mode": "plain",
        "hide_link": False,
        "instructions": {"steps": STEPS},
    }


async def test_revoking_keeps_the_new_link(cabinet, client, make_user, fake_panel, wait_for, rows):
    user, row = await pushed(client, make_user, fake_panel, wait_for, rows)
    old = row.subscription_url
    async with cabinet(user.id) as http:
        revoked = await http.post(REVOKE, params={"subscription_id": row.id})
        assert revoked.status_code == 200, revoked.text
        (account,) = fake_panel.users_of_messenger_id(user.messenger_id)
        assert revoked.json()["subscription_url"] == account["subscriptionUrl"] != old
        assert revoked.json()["success"] is True
        assert revoked.json()["happ_crypto_link"] == account["happ"]["cryptoLink"]
        (stored,) = await rows(Subscription, id=row.id)
        assert (stored.subscription_url, stored.subscription_crypto_link) == (
            account["subscriptionUrl"],
            account["happ"]["cryptoLink"],
        )
        assert (await http.get(LINK)).json()["subscription_url"] == account["subscriptionUrl"]
        await fake_panel.down()
        failed = await http.post(REVOKE)
        assert failed.status_code == 502
    (unchanged,) = await rows(Subscription, id=row.id)
    assert unchanged.subscription_url == account["subscriptionUrl"]
    assert fake_panel.count("POST", f"/users/{account['uuid']}/actions/revoke") == 1


async def test_revoking_without_an_account_or_a_subscription(cabinet, subscriber, make_user):
    me = await subscriber(account=False)
    async with cabinet(me.user.id) as http:
        refused = await http.post(REVOKE)
        assert (refused.status_code, refused.json()) == (400, {"detail": "Panel user not found"})
    async with cabinet((await make_user()).id) as http:
        assert (await http.post(REVOKE)).status_code == 404


@pytest.mark.addons_env(
    CONNECT_MODE="happ_cryptolink", HAPP_CRYPTOLINK_REDIRECT_TEMPLATE="https://open.example/?to={link}"
)
async def test_happ_crypto_link_mode(cabinet, subscriber, db):
    me = await subscriber(
        subscription_url="https://sub.example/abc", subscription_crypto_link="happ://crypt3/abc"
    )
    async with cabinet(me.user.id) as http:
        found = (await http.get(LINK)).json()
    assert found["connect_mode"] == "happ_cryptolink"
    assert found["happ_scheme_link"] == "happ://add/https://sub.example/abc"
    assert found["happ_redirect_link"] == "https://open.example/?to=happ://crypt3/abc"
    assert found["happ_crypto_link"] == "happ://crypt3/abc"


@pytest.mark.addons_env(
    HAPP_DOWNLOAD_LINKS=json.dumps({"android": "https://a.example", "ios": "https://i.example"})
)
async def test_happ_downloads(cabinet, make_user):
    async with cabinet((await make_user()).id) as http:
        found = (await http.get("/cabinet/subscription/happ-downloads")).json()
    assert found == {
        "platforms": {
            "android": {"name": "Android", "icon": "🤖", "link": "https://a.example"},
            "ios": {"name": "iOS (iPhone/iPad)", "icon": "🍎", "link": "https://i.example"},
        },
        "happ_enabled": True,
    }


async def test_no_happ_downloads_and_no_app_config_by_default(cabinet, make_user):
    async with cabinet((await make_user()).id) as http:
        assert (await http.get("/cabinet/subscription/happ-downloads")).json() == {
            "platforms": {},
            "happ_enabled": False,
        }
        missing = await http.get("/cabinet/subscription/app-config")
        assert (missing.status_code, missing.json()) == (404, {"detail": "App configuration not set up."})


@pytest.fixture
def app_config_file(tmp_path, monkeypatch):
    path = tmp_path / "apps.json"
    path.write_text(
        json.dumps(
            {
                "platforms": {
                    "ios": {
                        "apps": [
                            {
                                "name": "Happ",
                                "urlScheme": "happ://add/",
                                "link": "happ://add/{{SUBSCRIPTION_LINK}}",
                            },
                            {
                                "name": "Crypt",
                                "link": "{{HAPP_CRYPT4_LINK}}",
                                "tags": ["{{HAPP_CRYPT3_LINK}}", 1],
                            },
                        ]
                    }
                },
                "uiConfig": {"title": "Connect"},
            }
        )
    )
    monkeypatch.setenv("APP_CONFIG_FILE", str(path))
    return path


async def test_the_app_config_carries_the_subscriptions_links(
    app_config_file, cabinet, subscriber, make_user
):
    me = await subscriber(
        subscription_url="https://sub.example/abc", subscription_crypto_link="happ://crypt4/abc"
    )
    async with cabinet(me.user.id) as http:
        found = (await http.get("/cabinet/subscription/app-config")).json()
    assert found["platforms"]["ios"]["apps"] == [
        {"name": "Happ", "urlScheme": "happ://add/", "link": "happ://add/https://sub.example/abc"},
        {"name": "Crypt", "link": "happ://crypt4/abc", "tags": ["happ://crypt4/abc", 1]},
    ]
    assert found["uiConfig"] == {"title": "Connect"}
    assert (found["hasSubscription"], found["subscriptionUrl"], found["hideLink"]) == (
        True,
        "https://sub.example/abc",
        False,
    )
    async with cabinet((await make_user()).id) as http:  # no subscription: the placeholders stay
        bare = (await http.get("/cabinet/subscription/app-config")).json()
    assert bare["platforms"]["ios"]["apps"][0]["link"] == "happ://add/{{SUBSCRIPTION_LINK}}"
    assert (bare["hasSubscription"], bare["subscriptionUrl"]) == (False, None)


async def test_an_unreadable_app_config_is_not_set_up(app_config_file, cabinet, make_user):
    app_config_file.write_text("[1, 2")
    async with cabinet((await make_user()).id) as http:
        assert (await http.get("/cabinet/subscription/app-config")).status_code == 404
