"""Syncing the servers with the VPN panel's squads, through the ``servers_panel`` hook: 503
without a panel, 502 when it fails, and the sync rules with one (this test package's
in-memory panel stands in for the panel plugin of issue 7)."""

from __future__ import annotations

import pytest
from subsvc_servers.models import Server
from subsvc_servers.panel import PanelSquad

from .conftest import FakePanel

NOT_CONFIGURED = {"detail": "VPN panel is not configured"}


@pytest.mark.parametrize("path", ["/servers/sync", "/cabinet/admin/servers/sync"])
async def test_without_a_panel_it_is_503(client, admin, path):
    http = admin if path.startswith("/cabinet") else client
    response = await http.post(path)
    assert (response.status_code, response.json()) == (503, NOT_CONFIGURED)


@pytest.mark.parametrize("path", ["/servers/sync", "/cabinet/admin/servers/sync"])
async def test_a_failing_panel_is_502_and_changes_nothing(client, admin, fakes, make_server, rows, path):
    await make_server("squad-1")
    fakes.panel = FakePanel()
    fakes.panel.failure = "connection refused"
    http = admin if path.startswith("/cabinet") else client
    response = await http.post(path)
    assert (response.status_code, response.json()) == (502, {"detail": "VPN panel error: connection refused"})
    assert [s.squad_uuid for s in await rows(Server)] == ["squad-1"]


async def test_sync_creates_updates_and_removes(client, fakes, make_server, make_group, rows, links):
    group = await make_group("VIP")
    kept = await make_server("squad-kept", displayName="My name", priceKopeks=900, isAvailable=True)
    named = await make_server("squad-named", displayName="Named", originalName="Panel name", countryCode="NL")
    gone = await make_server("squad-gone", promoGroupIds=[group["id"]])
    fakes.panel = FakePanel()
    fakes.panel.squads_listed = [
        PanelSquad("squad-kept", "  Germany 1 ", "DE"),
        PanelSquad("squad-named", "Panel name", "FR"),  # nothing differs (our country code stays)
        PanelSquad("squad-new", "Finland", "FI"),
        PanelSquad("squad-new", "Finland (again)", "FI"),  # listed twice: one server
    ]

    response = await client.post("/servers/sync")
    assert response.status_code == 200, response.text
    assert response.json() == {"created": 1, "updated": 1, "removed": 1, "total": 3}

    servers = {s.squad_uuid: s for s in await rows(Server)}
    assert set(servers) == {"squad-kept", "squad-named", "squad-new"}
    assert (servers["squad-kept"].display_name, servers["squad-kept"].original_name) == (
        "My name",
        "Germany 1",
    )
    assert (servers["squad-kept"].country_code, servers["squad-kept"].price_kopeks) == ("DE", 900)
    assert servers["squad-kept"].is_available is True
    assert servers["squad-named"].country_code == "NL"
    new = servers["squad-new"]
    assert (new.display_name, new.original_name, new.country_code) == (
        "Finland (again)",
        "Finland (again)",
        "FI",
    )
    assert (new.is_available, new.price_kopeks) == (False, 0)  # nothing sold before it is set up
    assert await links() == []
    assert kept["id"] == servers["squad-kept"].id and named["id"] == servers["squad-named"].id
    assert gone["id"] not in {s.id for s in servers.values()}


async def test_a_second_sync_changes_nothing_and_the_cabinet_says_so(admin, fakes, rows):
    fakes.panel = FakePanel()
    fakes.panel.squads_listed = [PanelSquad("a", "A"), PanelSquad("b", "B", None)]
    first = await admin.post("/cabinet/admin/servers/sync")
    assert first.json() == {
        "created": 2,
        "updated": 0,
        "removed": 0,
        "message": "Synced: 2 created, 0 updated, 0 removed",
    }
    again = await admin.post("/cabinet/admin/servers/sync")
    assert again.json() == {
        "created": 0,
        "updated": 0,
        "removed": 0,
        "message": "Synced: 0 created, 0 updated, 0 removed",
    }
    assert sorted(s.squad_uuid for s in await rows(Server)) == ["a", "b"]
    assert fakes.panel.calls == 2
