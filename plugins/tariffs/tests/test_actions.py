"""Order, toggle, trial flag, delete (409 while subscriptions use the tariff), stats, and what
deleting a promo group does to the tariffs restricted to it."""

from __future__ import annotations

import sys

import pytest
from subsvc_tariffs.models import Tariff

from subsvc.hookspecs import hookimpl

BASE = "/cabinet/admin/tariffs"


async def _names(admin) -> list[str]:
    return [t["name"] for t in (await admin.get(BASE)).json()["tariffs"]]


# --- order ---------------------------------------------------------------------------------------


async def test_order_puts_the_listed_tariffs_first(admin, make_tariff):
    a, b, c, d = [await make_tariff(name=name) for name in "ABCD"]
    response = await admin.put(f"{BASE}/order", json={"tariff_ids": [c["id"], a["id"]]})
    assert response.status_code == 200
    assert response.json() == {"message": "Tariff order updated successfully"}
    listed = (await admin.get(BASE)).json()["tariffs"]
    assert [(t["name"], t["display_order"]) for t in listed] == [("C", 0), ("A", 1), ("B", 2), ("D", 3)]
    untouched = (await admin.get(f"{BASE}/{d['id']}")).json()
    assert untouched["updated_at"] == d["updated_at"]  # already in place: not rewritten
    assert (await admin.get(f"{BASE}/{b['id']}")).json()["updated_at"] > b["updated_at"]


@pytest.mark.parametrize(
    ("body", "location"),
    [
        ({"tariff_ids": []}, ["body", "tariff_ids"]),
        ({}, ["body", "tariff_ids"]),
        ({"tariff_ids": ["x"]}, ["body", "tariff_ids", 0]),
    ],
)
async def test_order_needs_ids(admin, body, location):
    response = await admin.put(f"{BASE}/order", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == location


async def test_order_refuses_repeats_and_unknown_ids_and_changes_nothing(admin, make_tariff):
    await make_tariff(name="A")
    b = await make_tariff(name="B")
    repeated = await admin.put(f"{BASE}/order", json={"tariff_ids": [b["id"], b["id"]]})
    assert repeated.status_code == 422
    unknown = await admin.put(f"{BASE}/order", json={"tariff_ids": [b["id"], 9999]})
    assert (unknown.status_code, unknown.json()) == (400, {"detail": "Unknown tariffs: 9999"})
    assert await _names(admin) == ["A", "B"]


# --- toggle and trial ----------------------------------------------------------------------------


async def test_toggle_flips_active(admin, make_tariff, outbox):
    tariff = await make_tariff(name="Pro")
    off = await admin.post(f"{BASE}/{tariff['id']}/toggle")
    assert off.json() == {"id": tariff["id"], "is_active": False, "message": "Tariff deactivated"}
    assert (await admin.get(BASE, params={"include_inactive": False})).json()["total"] == 0
    on = await admin.post(f"{BASE}/{tariff['id']}/toggle")
    assert on.json() == {"id": tariff["id"], "is_active": True, "message": "Tariff activated"}
    kinds = [(kind, payload["is_active"], payload["changes"]) for kind, payload in await outbox()]
    assert kinds[1:] == [("tariff.updated", False, ["is_active"]), ("tariff.updated", True, ["is_active"])]


async def test_only_one_tariff_is_the_trial_tariff(admin, make_tariff, rows):
    first, second, third = await make_tariff(), await make_tariff(), await make_tariff()
    response = await admin.post(f"{BASE}/{first['id']}/trial")
    assert response.json() == {
        "id": first["id"],
        "is_trial_available": True,
        "message": "Tariff set as trial",
    }
    await admin.post(f"{BASE}/{second['id']}/trial")
    flags = {row.id: row.is_trial_available for row in await rows(Tariff)}
    assert flags == {first["id"]: False, second["id"]: True, third["id"]: False}
    off = await admin.post(f"{BASE}/{second['id']}/trial")
    assert off.json() == {
        "id": second["id"],
        "is_trial_available": False,
        "message": "Tariff removed from trial",
    }
    assert not any(row.is_trial_available for row in await rows(Tariff))


async def test_trial_flag_shows_in_list_and_detail(admin, make_tariff):
    tariff = await make_tariff()
    await admin.post(f"{BASE}/{tariff['id']}/trial")
    assert (await admin.get(BASE)).json()["tariffs"][0]["is_trial_available"] is True
    assert (await admin.get(f"{BASE}/{tariff['id']}")).json()["is_trial_available"] is True


# --- delete --------------------------------------------------------------------------------------


async def test_delete_an_unused_tariff(admin, make_tariff, make_group, restrictions, outbox):
    group = await make_group()
    tariff = await make_tariff(name="Gone", promo_group_ids=[group.id])
    response = await admin.delete(f"{BASE}/{tariff['id']}")
    assert response.status_code == 200
    assert response.json() == {"message": "Tariff deleted successfully", "affected_subscriptions": 0}
    assert (await admin.get(f"{BASE}/{tariff['id']}")).status_code == 404
    assert await restrictions() == []
    assert (await outbox())[-1] == (
        "tariff.deleted",
        {"tariff_id": tariff["id"], "name": "Gone", "is_active": True, "changes": []},
    )
    assert (await admin.delete(f"{BASE}/{tariff['id']}")).status_code == 404


async def test_a_tariff_in_use_is_409_whatever_the_status(admin, make_tariff, make_subscription, rows):
    tariff = await make_tariff(name="Used")
    await make_subscription(tariff_id=tariff["id"], status="expired")
    await make_subscription(tariff_id=tariff["id"], status="disabled")
    response = await admin.delete(f"{BASE}/{tariff['id']}")
    assert response.status_code == 409
    assert response.json() == {
        "detail": "Tariff is used by 2 subscription(s); deactivate it instead of deleting it"
    }
    assert [row.name for row in await rows(Tariff)] == ["Used"]


# --- stats ---------------------------------------------------------------------------------------


async def test_stats_count_the_tariffs_subscriptions(admin, make_tariff, make_subscription):
    tariff = await make_tariff(name="Pro")
    other = await make_tariff(name="Other")
    await make_subscription(tariff_id=tariff["id"], status="active")
    await make_subscription(tariff_id=tariff["id"], status="active", is_trial=True)
    await make_subscription(tariff_id=tariff["id"], status="active", days=-1)  # ended: reads expired
    await make_subscription(tariff_id=tariff["id"], status="expired", is_trial=True)
    await make_subscription(tariff_id=tariff["id"], status="disabled")
    await make_subscription(tariff_id=other["id"], status="active")
    response = await admin.get(f"{BASE}/{tariff['id']}/stats")
    assert response.status_code == 200
    assert response.json() == {
        "id": tariff["id"],
        "name": "Pro",
        "subscriptions_count": 5,
        "active_subscriptions": 2,
        "trial_subscriptions": 2,
        "revenue_kopeks": 0,
        "revenue_rubles": 0.0,
    }


class TestRevenue:
    """Revenue is what the payment plugins report through ``tariff_revenue_kopeks``; this
    module is such a plugin (two answers, one abstention)."""

    @pytest.fixture
    def subsvc_plugins(self, subsvc_plugins):
        return [*subsvc_plugins, sys.modules[__name__]]

    async def test_revenue_adds_up_the_reports(self, admin, make_tariff):
        tariff = await make_tariff()
        REPORTS.clear()
        REPORTS[tariff["id"]] = 12345
        body = (await admin.get(f"{BASE}/{tariff['id']}/stats")).json()
        assert (body["revenue_kopeks"], body["revenue_rubles"]) == (12345 + 100, 124.45)


PLUGIN_NAME = "revenue_probe"
REQUIRES = ("tariffs",)
REPORTS: dict[int, int] = {}


@hookimpl
def tariff_revenue_kopeks(app, session, tariff_id):
    async def report() -> int | None:
        return REPORTS.get(tariff_id)

    return report()


@hookimpl(specname="tariff_revenue_kopeks")
def flat_fee(app, session, tariff_id):
    return 100 if tariff_id in REPORTS else None


# --- promo groups going away ---------------------------------------------------------------------


async def test_deleting_a_promo_group_takes_it_off_tariffs_with_other_groups(
    client, make_tariff, make_group, restrictions
):
    doomed, kept = await make_group(name="Doomed"), await make_group(name="Kept")
    await make_group(name="Default", is_default=True)
    shared = await make_tariff(promo_group_ids=[doomed.id, kept.id])
    response = await client.delete(f"/promo-groups/{doomed.id}")
    assert response.status_code == 204, response.text
    assert await restrictions() == [(shared["id"], kept.id)]


async def test_a_promo_group_that_alone_may_buy_a_tariff_cannot_be_deleted(
    client, make_tariff, make_group, restrictions
):
    only, other = await make_group(name="Only"), await make_group(name="Other")
    await make_group(name="Default", is_default=True)
    exclusive = await make_tariff(promo_group_ids=[only.id])
    shared = await make_tariff(promo_group_ids=[only.id, other.id])
    response = await client.delete(f"/promo-groups/{only.id}")
    assert response.status_code == 409
    assert response.json() == {"detail": "Promo group is still in use"}
    # nothing changed, not even the shared tariff's row
    assert await restrictions() == sorted(
        [(exclusive["id"], only.id), (shared["id"], only.id), (shared["id"], other.id)]
    )
