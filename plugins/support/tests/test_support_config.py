"""`GET /cabinet/info/support-config` (public): the mode decides whether tickets are offered
and the support type; the contact comes from `SUPPORT_USERNAME`."""

from __future__ import annotations

import pytest
from subsvc_support.settings import SupportSettings

CONFIG = "/cabinet/info/support-config"
SETTINGS = "/cabinet/admin/tickets/settings"
NAME = {
    "support_url": "https://t.me/help_desk",
    "support_username": "@help_desk",
    "contact_is_messenger": True,
}
INVITE = {"support_url": "https://t.me/+invite", "support_username": None, "contact_is_messenger": False}
URL = {"support_url": "https://example.com/help", "support_username": None, "contact_is_messenger": False}


@pytest.mark.parametrize(
    ("mode", "username", "expected"),
    [
        ("both", "@help_desk", {"tickets_enabled": True, "support_type": "both", **NAME}),
        ("tickets", "@help_desk", {"tickets_enabled": True, "support_type": "tickets", **NAME}),
        ("contact", "@help_desk", {"tickets_enabled": False, "support_type": "profile", **NAME}),
        ("contact", "help_desk", {"tickets_enabled": False, "support_type": "profile", **NAME}),
        ("contact", "https://t.me/help_desk", {"tickets_enabled": False, "support_type": "profile", **NAME}),
        ("contact", "t.me/help_desk/", {"tickets_enabled": False, "support_type": "profile", **NAME}),
        ("contact", "https://t.me/+invite", {"tickets_enabled": False, "support_type": "url", **INVITE}),
        ("contact", "https://example.com/help", {"tickets_enabled": False, "support_type": "url", **URL}),
        ("both", "https://example.com/help", {"tickets_enabled": True, "support_type": "both", **URL}),
    ],
)
async def test_each_mode_and_contact(admin, anon_client, change_settings, mode, username, expected):
    change_settings(SupportSettings, SUPPORT_USERNAME=username)
    assert (await admin.patch(SETTINGS, json={"support_system_mode": mode})).status_code == 200
    answer = await anon_client.get(CONFIG)
    assert answer.status_code == 200 and answer.json() == expected


async def test_without_a_contact_nothing_is_linked(anon_client, change_settings):
    change_settings(SupportSettings, SUPPORT_SYSTEM_MODE="contact")
    assert (await anon_client.get(CONFIG)).json() == {
        "tickets_enabled": False,
        "support_type": "url",
        "support_url": None,
        "support_username": None,
        "contact_is_messenger": False,
    }


async def test_the_default_is_both_with_tickets(member):
    answer = (await member.get(CONFIG)).json()
    assert (answer["tickets_enabled"], answer["support_type"]) == (True, "both")


async def test_the_messenger_link_base_is_a_setting(anon_client, change_settings):
    change_settings(
        SupportSettings, SUPPORT_USERNAME="@help_desk", SUPPORT_MESSENGER_LINK_BASE="https://m.example/"
    )
    assert (await anon_client.get(CONFIG)).json()["support_url"] == "https://m.example/help_desk"
