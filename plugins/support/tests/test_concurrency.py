"""Concurrent changes against PostgreSQL: changes of different values made at the same time
all land, the first ones included (when both insert the row)."""

from __future__ import annotations

import asyncio

import pytest
from subsvc_support.models import SupportSettingsRow

SETTINGS = "/cabinet/admin/tickets/settings"


@pytest.fixture(autouse=True)
def _postgresql_only(db):
    if db.dialect != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite runs one writer at a time, so these races cannot happen there")


async def test_concurrent_first_changes_of_different_values_all_land(admin, rows):
    bodies = [
        {"sla_minutes": 17},
        {"sla_check_interval_seconds": 90},
        {"sla_reminder_cooldown_minutes": 11},
        {"support_system_mode": "tickets"},
        {"sla_enabled": False},
        {"cabinet_user_notifications_enabled": False},
    ]
    responses = await asyncio.gather(*(admin.patch(SETTINGS, json=body) for body in bodies))
    assert [r.status_code for r in responses] == [200] * len(bodies)
    (row,) = await rows(SupportSettingsRow)
    assert (row.sla_minutes, row.sla_check_interval_seconds, row.sla_reminder_cooldown_minutes) == (
        17,
        90,
        11,
    )
    assert (row.system_mode, row.sla_enabled, row.cabinet_user_notifications_enabled) == (
        "tickets",
        False,
        False,
    )
    answer = (await admin.get(SETTINGS)).json()
    assert (answer["sla_minutes"], answer["support_system_mode"], answer["sla_enabled"]) == (
        17,
        "tickets",
        False,
    )
