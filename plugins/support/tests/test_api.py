"""`subsvc_support.api`: the configuration other plugins read, and changing it in a
transaction (seen by every reader once committed, never when rolled back)."""

from __future__ import annotations

import pydantic
import pytest
from subsvc_support.api import SupportConfig, support_config, update_support_config

SETTINGS = "/cabinet/admin/tickets/settings"


async def test_the_whole_configuration_with_its_defaults(app):
    config = await support_config(app)
    assert isinstance(config, SupportConfig)
    assert config.system_mode == "both" and config.tickets_enabled and config.menu_enabled
    assert (dict(config.info_texts), config.moderators) == ({}, ())
    assert config.admin_ticket_notifications_enabled and config.user_ticket_notifications_enabled
    assert (config.sla_enabled, config.sla_minutes) == (True, 5)
    assert (config.sla_check_interval_seconds, config.sla_reminder_cooldown_minutes) == (60, 30)


async def test_a_change_is_seen_once_committed(app, db, admin):
    before = await support_config(app)
    async with db.session() as session:
        changed = await update_support_config(
            session,
            app,
            system_mode="contact",
            info_texts={"ru": "Пишите нам", "en": "Write to us"},
            moderators=[111, 222],
            user_ticket_notifications_enabled=False,
            menu_enabled=None,
        )
        assert not changed.tickets_enabled and changed.moderators == (111, 222)
        assert (await support_config(app)) == before  # other sessions: not yet
        await session.commit()
    after = await support_config(app)
    assert after == changed and after.info_texts["en"] == "Write to us"
    assert after.menu_enabled and not after.user_ticket_notifications_enabled
    assert (await admin.get(SETTINGS)).json()["support_system_mode"] == "contact"


async def test_a_rolled_back_change_is_never_seen(app, db):
    async with db.session() as session:
        await update_support_config(session, app, sla_minutes=33)
        await session.rollback()
    assert (await support_config(app)).sla_minutes == 5


@pytest.mark.parametrize("changes", [{"sla_minutes": 0}, {"system_mode": "all"}, {"colour": "red"}])
async def test_bad_changes_are_refused(app, db, changes):
    async with db.session() as session:
        with pytest.raises(pydantic.ValidationError):
            await update_support_config(session, app, **changes)


async def test_changes_of_different_values_both_land(app, db):
    async with db.session() as one, db.session() as two:
        await update_support_config(one, app, sla_minutes=11)
        await one.commit()
        await update_support_config(two, app, sla_enabled=False)
        await two.commit()
    config = await support_config(app)
    assert (config.sla_minutes, config.sla_enabled) == (11, False)
