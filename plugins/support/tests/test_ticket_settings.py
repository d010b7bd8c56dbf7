"""`GET|PATCH /cabinet/admin/tickets/settings`: the environment's defaults until an
administrator changes a value, then the stored value; ranges 422, an unknown mode 400."""

from __future__ import annotations

import pytest
from subsvc_support.models import SupportSettingsRow
from subsvc_support.settings import SupportSettings

SETTINGS = "/cabinet/admin/tickets/settings"
DEFAULTS = {
    "sla_enabled": True,
    "sla_minutes": 5,
    "sla_check_interval_seconds": 60,
    "sla_reminder_cooldown_minutes": 30,
    "support_system_mode": "both",
    "cabinet_user_notifications_enabled": True,
    "cabinet_admin_notifications_enabled": True,
}


async def test_the_defaults_come_from_the_environment(admin, rows):
    assert (await admin.get(SETTINGS)).json() == DEFAULTS
    answer = await admin.patch(SETTINGS, json={})  # nothing to change: nothing is stored
    assert answer.status_code == 200 and answer.json() == DEFAULTS
    assert await rows(SupportSettingsRow) == []


async def test_the_environment_sets_the_defaults(admin, change_settings, rows):
    change_settings(SupportSettings, SUPPORT_SYSTEM_MODE="contact", SUPPORT_TICKET_SLA_MINUTES=15)
    answer = (await admin.get(SETTINGS)).json()
    assert answer == {**DEFAULTS, "support_system_mode": "contact", "sla_minutes": 15}
    assert await rows(SupportSettingsRow) == []


async def test_a_change_is_stored_answered_and_read_back(admin, rows):
    changed = await admin.patch(
        SETTINGS, json={"sla_minutes": 20, "support_system_mode": " Tickets ", "sla_enabled": False}
    )
    expected = {**DEFAULTS, "sla_minutes": 20, "support_system_mode": "tickets", "sla_enabled": False}
    assert changed.status_code == 200 and changed.json() == expected
    assert (await admin.get(SETTINGS)).json() == expected
    (row,) = await rows(SupportSettingsRow)
    assert (row.sla_minutes, row.system_mode, row.sla_enabled) == (20, "tickets", False)
    assert row.sla_check_interval_seconds is None  # not set: the environment's default still applies


async def test_fields_left_out_or_null_keep_their_values(admin):
    await admin.patch(
        SETTINGS, json={"sla_check_interval_seconds": 120, "cabinet_user_notifications_enabled": False}
    )
    second = await admin.patch(
        SETTINGS, json={"sla_reminder_cooldown_minutes": 45, "sla_check_interval_seconds": None}
    )
    assert second.json() == {
        **DEFAULTS,
        "sla_check_interval_seconds": 120,
        "cabinet_user_notifications_enabled": False,
        "sla_reminder_cooldown_minutes": 45,
    }


async def test_the_stored_value_wins_over_the_environment(admin, change_settings):
    await admin.patch(SETTINGS, json={"sla_minutes": 7})
    change_settings(SupportSettings, SUPPORT_TICKET_SLA_MINUTES=99, SUPPORT_TICKET_SLA_ENABLED=False)
    await admin.patch(SETTINGS, json={"cabinet_admin_notifications_enabled": False})  # drops the cache
    answer = (await admin.get(SETTINGS)).json()
    assert (answer["sla_minutes"], answer["sla_enabled"]) == (7, False)


@pytest.mark.parametrize(
    "body",
    [
        {"sla_minutes": 0},
        {"sla_minutes": 1441},
        {"sla_check_interval_seconds": 29},
        {"sla_check_interval_seconds": 601},
        {"sla_reminder_cooldown_minutes": 0},
        {"sla_reminder_cooldown_minutes": 121},
        {"sla_enabled": "maybe"},
        {"sla_minutes": "five"},
    ],
)
async def test_values_out_of_range_are_refused_with_422(admin, rows, body):
    answer = await admin.patch(SETTINGS, json=body)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", next(iter(body))]
    assert await rows(SupportSettingsRow) == []


async def test_the_range_limits_themselves_are_accepted(admin):
    low = {"sla_minutes": 1, "sla_check_interval_seconds": 30, "sla_reminder_cooldown_minutes": 1}
    high = {"sla_minutes": 1440, "sla_check_interval_seconds": 600, "sla_reminder_cooldown_minutes": 120}
    for body in (low, high):
        answer = await admin.patch(SETTINGS, json=body)
        assert answer.status_code == 200 and answer.json() == {**DEFAULTS, **body}


@pytest.mark.parametrize("mode", ["", "all", "ticket", "kontakt"])
async def test_an_unknown_mode_is_refused_with_400_and_nothing_is_stored(admin, rows, mode):
    answer = await admin.patch(SETTINGS, json={"support_system_mode": mode, "sla_minutes": 9})
    assert answer.status_code == 400
    assert answer.json() == {"detail": "Invalid support_system_mode. Must be: tickets, contact, or both"}
    assert await rows(SupportSettingsRow) == []


async def test_a_member_without_the_permission_is_refused(member, anon_client, rows):
    assert (await member.get(SETTINGS)).status_code == 403
    assert (await member.patch(SETTINGS, json={"sla_minutes": 9})).status_code == 403
    assert (await anon_client.get(SETTINGS)).status_code == 401
    assert (await anon_client.patch(SETTINGS, json={"sla_minutes": 9})).status_code == 401
    assert await rows(SupportSettingsRow) == []
