"""Two instances sharing the database and a Redis bus: a change made through one is read by
the other at once, though it had the configuration cached."""

from __future__ import annotations

from contextlib import AsyncExitStack

from subsvc_support.api import support_config
from subsvc_support.settings import SupportSettings

from subsvc.app import create_app
from subsvc.testing import bearer_client, recorded_statements

SETTINGS = "/cabinet/admin/tickets/settings"
CONFIG = "/cabinet/info/support-config"


async def test_a_change_drops_the_other_instances_cache(
    redis_url, subsvc_settings, app, admin_token, wait_for
):
    settings = subsvc_settings.model_copy(update={"REDIS_URL": redis_url})
    one, two = create_app(settings, plugins=["support"]), create_app(settings, plugins=["support"])
    async with AsyncExitStack() as stack:
        for instance in (one, two):
            await stack.enter_async_context(instance.router.lifespan_context(instance))
        a = await stack.enter_async_context(bearer_client(one, admin_token))
        b = await stack.enter_async_context(bearer_client(two, admin_token))
        assert (await b.get(SETTINGS)).json()["sla_minutes"] == 5  # cached on instance two
        assert (await b.get(CONFIG)).json()["tickets_enabled"] is True
        changed = await a.patch(SETTINGS, json={"sla_minutes": 42, "support_system_mode": "contact"})
        assert changed.status_code == 200

        async def seen() -> bool:
            return (await support_config(two)).sla_minutes == 42

        await wait_for(seen)
        assert (await b.get(SETTINGS)).json()["sla_minutes"] == 42
        assert (await b.get(CONFIG)).json()["tickets_enabled"] is False


async def test_without_a_change_the_cache_answers(app, admin, db):
    """The second read is served from memory: no query reaches the database."""
    await admin.get(SETTINGS)
    with recorded_statements(db) as statements:
        assert (await admin.get(SETTINGS)).status_code == 200
    assert not [s for s in statements if "support_settings" in s]


async def test_with_no_cache_time_an_instance_without_the_bus_reads_each_time(subsvc_settings, app, admin):
    """Two instances without Redis do not hear each other; ``SUPPORT_CONFIG_CACHE_SECONDS=0``
    makes the other read the stored configuration at every use."""
    other = create_app(subsvc_settings, plugins=["support"])
    async with other.router.lifespan_context(other):
        other.state.settings_of["support"] = SupportSettings.of(other).model_copy(
            update={"SUPPORT_CONFIG_CACHE_SECONDS": 0}
        )
        assert (await support_config(other)).sla_minutes == 5
        assert (await admin.patch(SETTINGS, json={"sla_minutes": 8})).status_code == 200
        assert (await support_config(other)).sla_minutes == 8
