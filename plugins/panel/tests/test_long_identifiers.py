"""An identifier too long to be put in a panel URL (once escaped) names nothing the panel
keeps: the endpoints answer 404 as for any unknown one (the URL could not be built: 500)."""

from __future__ import annotations

from subsvc_panel.testing import FakePanel

# "(" is sent as it is in our request's path but escaped to "%28" in the panel's URL
LONG = "(" * 25_000


async def test_a_squad_id_too_long_for_a_panel_url_is_not_found(client, fake_panel: FakePanel):
    squad = fake_panel.add_squad("Main")
    migrated = await client.post(
        "/panel/squads/migrate", json={"source_uuid": LONG, "target_uuid": squad["uuid"]}
    )
    assert migrated.status_code == 404, migrated.text
    assert migrated.json() == {"detail": "Squad not found"}
    shown = await client.get(f"/panel/squads/{LONG}")
    assert shown.status_code == 404 and shown.json() == {"detail": "Squad not found"}
    node = await client.get(f"/panel/nodes/{LONG}")
    assert node.status_code == 404, node.text
    assert not any(LONG[:100] in path for _, path in fake_panel.requests)  # nothing was sent
