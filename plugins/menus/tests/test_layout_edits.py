"""`/menu-layout/buttons` and `/menu-layout/rows`: one change at a time, each checked, atomic
and recorded; concurrent changes never lose one another."""

from __future__ import annotations

import asyncio

from subsvc_menus.models import MenuLayoutHistory

from subsvc.events import OutboxEvent

BASE = "/menu-layout"
LINK = {"type": "url", "text": {"en": "Site"}, "action": "https://example.com"}


async def _layout(client):
    return (await client.get(BASE)).json()


def _row_ids(layout):
    return [row["id"] for row in layout["rows"]]


def _row(layout, row_id):
    return next(row for row in layout["rows"] if row["id"] == row_id)


async def test_add_a_custom_button_to_a_row(client, rows):
    response = await client.post(
        f"{BASE}/buttons", json={**LINK, "id": "site", "row_id": "balance_row", "icon": "🌐"}
    )
    assert response.status_code == 201
    assert (
        response.json()["type"] == "url"
        and response.json()["icon"] == "🌐"
        and response.json()["builtin_id"] is None
    )
    layout = await _layout(client)
    assert _row(layout, "balance_row")["buttons"] == ["balance", "site"]
    (event,) = await rows(OutboxEvent, event_type="menu.updated")
    assert event.payload == {"document": "bot_layout", "action": "button_add"}


async def test_add_button_refusals(client):
    taken = await client.post(f"{BASE}/buttons", json={**LINK, "id": "info"})
    assert taken.status_code == 409 and taken.json() == {"detail": "Button with id 'info' already exists"}
    builtin = await client.post(f"{BASE}/buttons", json={**LINK, "id": "x", "type": "builtin"})
    assert builtin.status_code == 400 and builtin.json() == {
        "detail": "Only url, mini_app and callback buttons can be added"
    }
    no_row = await client.post(f"{BASE}/buttons", json={**LINK, "id": "x", "row_id": "nowhere"})
    assert no_row.status_code == 404 and no_row.json() == {"detail": "Row 'nowhere' not found"}
    bad_url = await client.post(f"{BASE}/buttons", json={**LINK, "id": "x", "action": "example.com"})
    assert bad_url.status_code == 400
    no_text = await client.post(f"{BASE}/buttons", json={**LINK, "id": "x", "text": {"en": " "}})
    assert no_text.status_code == 400 and "Button 'x' has no text" in no_text.json()["detail"]
    assert (await client.post(f"{BASE}/buttons", json={**LINK, "id": "x" * 51})).status_code == 422
    assert "x" not in (await _layout(client))["buttons"]


async def test_update_a_button(client):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "site", "icon": "🌐", "description": "d"})
    response = await client.patch(
        f"{BASE}/buttons/site",
        json={
            "text": {"en": "Hi {username}"},
            "visibility": "admins",
            "icon": None,
            "enabled": None,
            "conditions": {"is_admin": True},
            "action": "tg://resolve?domain=x",
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["text"] == {"en": "Hi {username}"} and body["dynamic_text"] is True
    assert body["visibility"] == "admins" and body["icon"] is None and body["enabled"] is True
    assert body["conditions"]["is_admin"] is True and body["action"] == "tg://resolve?domain=x"
    assert body["description"] == "d"  # not given: kept
    assert (await _layout(client))["buttons"]["site"] == body


async def test_a_builtin_button_keeps_its_action(client):
    refused = await client.patch(f"{BASE}/buttons/connect", json={"action": "https://x"})
    assert refused.status_code == 400 and refused.json()["detail"].startswith(
        "Builtin button 'connect' keeps its action"
    )
    direct = await client.patch(
        f"{BASE}/buttons/connect", json={"open_mode": "direct", "webapp_url": "https://app.x"}
    )
    assert direct.status_code == 200 and direct.json()["open_mode"] == "direct"
    assert direct.json()["action"] == "subscription_connect"
    bad = await client.patch(f"{BASE}/buttons/connect", json={"webapp_url": "http://app.x"})
    assert bad.status_code == 400 and "webapp_url must be an https:// URL" in bad.json()["detail"]
    missing = await client.patch(f"{BASE}/buttons/ghost", json={"enabled": False})
    assert missing.status_code == 404 and missing.json() == {"detail": "Button 'ghost' not found"}


async def test_delete_buttons(client):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "site", "row_id": "balance_row"})
    deleted = await client.delete(f"{BASE}/buttons/site")
    assert deleted.status_code == 204 and deleted.content == b""
    layout = await _layout(client)
    assert "site" not in layout["buttons"] and _row(layout, "balance_row")["buttons"] == ["balance"]
    builtin = await client.delete(f"{BASE}/buttons/info")
    assert builtin.status_code == 400 and builtin.json() == {
        "detail": "Cannot delete builtin buttons; disable them instead"
    }
    assert (await client.delete(f"{BASE}/buttons/site")).status_code == 404


async def test_rows_are_added_deleted_and_checked(client):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "site"})
    added = await client.post(
        f"{BASE}/rows", json={"id": "links", "buttons": ["site"], "max_per_row": 1, "position": 0}
    )
    assert added.status_code == 201
    assert added.json() == {"id": "links", "buttons": ["site"], "conditions": None, "max_per_row": 1}
    assert _row_ids(await _layout(client))[0] == "links"
    taken = await client.post(f"{BASE}/rows", json={"id": "links", "buttons": []})
    assert taken.status_code == 409 and taken.json() == {"detail": "Row with id 'links' already exists"}
    placed = await client.post(f"{BASE}/rows", json={"id": "again", "buttons": ["info"]})
    assert placed.status_code == 400 and "Button 'info' is placed more than once" in placed.json()["detail"]
    far = await client.post(f"{BASE}/rows", json={"id": "last", "buttons": [], "position": 99})
    assert far.status_code == 201 and _row_ids(await _layout(client))[-1] == "last"
    deleted = await client.delete(f"{BASE}/rows/links")
    assert deleted.status_code == 204
    layout = await _layout(client)
    assert "links" not in _row_ids(layout) and "site" in layout["buttons"]
    missing = await client.delete(f"{BASE}/rows/links")
    assert missing.status_code == 404 and missing.json() == {"detail": "Row 'links' not found"}


async def test_reordering_rows_is_all_or_nothing(client):
    before = _row_ids(await _layout(client))
    response = await client.post(f"{BASE}/rows/reorder", json={"ordered_ids": ["admin_row", "balance_row"]})
    assert response.status_code == 200
    order = [row["id"] for row in response.json()]
    assert order[:2] == ["admin_row", "balance_row"] and order[2:] == [
        r for r in before if r not in order[:2]
    ]
    unknown = await client.post(f"{BASE}/rows/reorder", json={"ordered_ids": ["info_row", "nope"]})
    assert unknown.status_code == 404 and unknown.json() == {"detail": "Row 'info_row' not found"}
    twice = await client.post(f"{BASE}/rows/reorder", json={"ordered_ids": ["admin_row", "admin_row"]})
    assert twice.status_code == 400 and twice.json() == {"detail": "Duplicate row ids: admin_row"}
    assert _row_ids(await _layout(client)) == order


async def test_reordering_buttons_in_a_row(client):
    response = await client.post(
        f"{BASE}/rows/trial_buy_row/reorder-buttons",
        json={"ordered_button_ids": ["buy_subscription", "trial"]},
    )
    assert response.json() == {"row_id": "trial_buy_row", "buttons": ["buy_subscription", "trial"]}
    mismatch = await client.post(
        f"{BASE}/rows/trial_buy_row/reorder-buttons", json={"ordered_button_ids": ["trial", "info"]}
    )
    assert mismatch.status_code == 400
    assert mismatch.json() == {"detail": "Button mismatch: missing: buy_subscription; extra: info"}
    missing = await client.post(f"{BASE}/rows/nope/reorder-buttons", json={"ordered_button_ids": []})
    assert missing.status_code == 404
    assert _row(await _layout(client), "trial_buy_row")["buttons"] == ["buy_subscription", "trial"]


async def test_moving_buttons_up_and_down(client):
    up = await client.post(f"{BASE}/buttons/balance/move-up")
    assert up.status_code == 200
    assert up.json() == {
        "button_id": "balance",
        "new_row_index": 2,
        "target_row_id": "subscription_traffic_row",
        "position": 2,
    }
    layout = await _layout(client)
    assert "balance_row" not in _row_ids(layout)  # left empty, removed
    down = await client.post(f"{BASE}/buttons/connect/move-down")
    assert down.json() == {
        "button_id": "connect",
        "new_row_index": 0,
        "target_row_id": "happ_row",
        "position": 1,
    }
    top = await client.post(f"{BASE}/buttons/connect/move-up")
    assert top.status_code == 400 and top.json() == {"detail": "Button is already in the top row"}
    bottom = await client.post(f"{BASE}/buttons/moderator_panel/move-down")
    assert bottom.status_code == 400 and bottom.json() == {"detail": "Button is already in the bottom row"}
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "loose"})
    loose = await client.post(f"{BASE}/buttons/loose/move-up")
    assert loose.status_code == 404 and loose.json() == {"detail": "Button 'loose' not found in any row"}


async def test_moving_a_button_to_a_row(client):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "loose"})
    placed = await client.post(
        f"{BASE}/buttons/loose/move-to-row", json={"target_row_id": "support_info_row", "position": 1}
    )
    assert placed.status_code == 200
    assert placed.json()["target_row_id"] == "support_info_row" and placed.json()["position"] == 1
    moved = await client.post(f"{BASE}/buttons/info/move-to-row", json={"target_row_id": "balance_row"})
    assert moved.json()["position"] == 1
    layout = await _layout(client)
    assert _row(layout, "support_info_row")["buttons"] == ["support", "loose"]
    assert _row(layout, "balance_row")["buttons"] == ["balance", "info"]
    no_row = await client.post(f"{BASE}/buttons/info/move-to-row", json={"target_row_id": "nope"})
    assert no_row.status_code == 404 and no_row.json() == {"detail": "Row 'nope' not found"}
    no_button = await client.post(f"{BASE}/buttons/ghost/move-to-row", json={"target_row_id": "balance_row"})
    assert no_button.status_code == 404 and no_button.json() == {"detail": "Button 'ghost' not found"}
    assert (
        await client.post(f"{BASE}/buttons/info/move-to-row", json={"target_row_id": "x", "position": -1})
    ).status_code == 422


async def test_swapping_two_buttons(client):
    response = await client.post(
        f"{BASE}/buttons/swap", json={"button_id_1": "connect", "button_id_2": "info"}
    )
    assert response.status_code == 200
    assert response.json() == {
        "button_1": {"id": "connect", "new_row": 9, "new_position": 1},
        "button_2": {"id": "info", "new_row": 0, "new_position": 0},
    }
    layout = await _layout(client)
    assert _row(layout, "connect_row")["buttons"] == ["info"] and _row(layout, "support_info_row")[
        "buttons"
    ] == ["support", "connect"]
    same = await client.post(f"{BASE}/buttons/swap", json={"button_id_1": "info", "button_id_2": "info"})
    assert same.status_code == 400
    missing = await client.post(f"{BASE}/buttons/swap", json={"button_id_1": "info", "button_id_2": "ghost"})
    assert missing.status_code == 404 and missing.json() == {"detail": "Button 'ghost' not found in any row"}


async def test_every_change_is_recorded_in_the_history(client, rows):
    await client.post(f"{BASE}/buttons/swap", json={"button_id_1": "connect", "button_id_2": "info"})
    await client.post(f"{BASE}/rows/reorder", json={"ordered_ids": ["nope"]})  # refused: not recorded
    await client.delete(f"{BASE}/rows/admin_row")
    summaries = [h.changes_summary for h in await rows(MenuLayoutHistory)]
    assert summaries == ["Buttons 'connect' and 'info' swapped", "Row 'admin_row' deleted"]


async def test_concurrent_changes_are_not_lost(client):
    adds = [
        client.post(f"{BASE}/buttons", json={**LINK, "id": f"b{n}", "row_id": "balance_row"})
        for n in range(8)
    ]
    results = await asyncio.gather(*adds)
    assert [r.status_code for r in results] == [201] * 8
    layout = await _layout(client)
    assert sorted(_row(layout, "balance_row")["buttons"]) == sorted(["balance", *(f"b{n}" for n in range(8))])
    assert all(f"b{n}" in layout["buttons"] for n in range(8))
