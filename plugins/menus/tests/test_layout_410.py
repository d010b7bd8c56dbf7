"""4.1.0's additions to the layout: a button's ``icon_custom_emoji_id`` (kept through add,
change, clear, export and import) and the ``traffic_topup_enabled`` condition."""

from __future__ import annotations

BASE = "/menu-layout"
LINK = {"type": "url", "text": {"en": "Site"}, "action": "https://example.com"}
EMOJI = "5368324170671202286"


async def test_custom_emoji_is_kept_changed_and_cleared(client):
    added = await client.post(f"{BASE}/buttons", json={**LINK, "id": "site", "icon_custom_emoji_id": EMOJI})
    assert added.status_code == 201 and added.json()["icon_custom_emoji_id"] == EMOJI
    assert (await client.get(BASE)).json()["buttons"]["site"]["icon_custom_emoji_id"] == EMOJI
    kept = await client.patch(f"{BASE}/buttons/site", json={"enabled": False})
    assert kept.json()["icon_custom_emoji_id"] == EMOJI
    changed = await client.patch(f"{BASE}/buttons/site", json={"icon_custom_emoji_id": "42"})
    assert changed.json()["icon_custom_emoji_id"] == "42"
    exported = (await client.get(f"{BASE}/export")).json()
    assert exported["buttons"]["site"]["icon_custom_emoji_id"] == "42"
    cleared = await client.patch(f"{BASE}/buttons/site", json={"icon_custom_emoji_id": None})
    assert cleared.json()["icon_custom_emoji_id"] is None
    imported = await client.post(f"{BASE}/import", json={**exported, "merge_mode": "replace"})
    assert imported.status_code == 200
    assert (await client.get(BASE)).json()["buttons"]["site"]["icon_custom_emoji_id"] == "42"
    builtin = (await client.get(BASE)).json()["buttons"]["balance"]
    assert builtin["icon_custom_emoji_id"] is None


async def test_custom_emoji_longer_than_100_is_422(client):
    response = await client.post(
        f"{BASE}/buttons", json={**LINK, "id": "x", "icon_custom_emoji_id": "1" * 101}
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "icon_custom_emoji_id"]


async def test_traffic_topup_condition_on_rows_buttons_and_the_builtin_default(client):
    builtins = (await client.get(f"{BASE}/builtin-buttons")).json()["items"]
    buy_traffic = next(item for item in builtins if item["id"] == "buy_traffic")
    assert buy_traffic["default_conditions"]["traffic_topup_enabled"] is True
    row = await client.post(
        f"{BASE}/rows", json={"id": "topup", "buttons": [], "conditions": {"traffic_topup_enabled": True}}
    )
    assert row.status_code == 201 and row.json()["conditions"]["traffic_topup_enabled"] is True
    button = await client.patch(
        f"{BASE}/buttons/balance", json={"conditions": {"traffic_topup_enabled": True}}
    )
    assert button.json()["conditions"]["traffic_topup_enabled"] is True
    # a deployment switch: the preview assumes it on
    preview = (await client.post(f"{BASE}/preview", json={"language": "en"})).json()
    texts = [b["text"] for line in preview["rows"] for b in line["buttons"]]
    assert "💰 Balance: 0 ₽" in texts
