"""`/menu-layout` as a whole: the default layout, replacing it (checked), reset, catalogue,
export/import, validation, preview with the visibility rules, history and rollback."""

from __future__ import annotations

import pytest
from subsvc_menus.models import MenuLayoutHistory

from subsvc.testing import parse_utc as utc

BASE = "/menu-layout"
LINK = {"type": "url", "text": {"ru": "Сайт", "en": "Site"}, "action": "https://example.com"}


async def test_the_default_layout_holds_every_builtin_button(client):
    response = await client.get(BASE)
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 1 and body["is_enabled"] is True and body["updated_at"] is None
    assert body["rows"][0] == {
        "id": "connect_row",
        "buttons": ["connect"],
        "conditions": {
            **dict.fromkeys(body["rows"][0]["conditions"]),
            "has_active_subscription": True,
            "subscription_is_active": True,
        },
        "max_per_row": 1,
    }
    builtins = (await client.get(f"{BASE}/builtin-buttons")).json()
    assert builtins["total"] == 17 == len(body["buttons"])
    assert {item["id"] for item in builtins["items"]} == set(body["buttons"])
    balance = body["buttons"]["balance"]
    assert (
        balance["dynamic_text"] is True
        and balance["action"] == "menu_balance"
        and balance["type"] == "builtin"
    )
    connect = next(item for item in builtins["items"] if item["id"] == "connect")
    assert connect["supports_direct_open"] is True and connect["callback_data"] == "subscription_connect"


async def test_replacing_rows_and_buttons(client, rows):
    layout = (await client.get(BASE)).json()
    buttons = {**layout["buttons"], "site": {**LINK, "text": {"en": "Balance {balance}"}}}
    new_rows = [{"id": "top", "buttons": ["site", "balance"], "max_per_row": 2}]
    response = await client.put(BASE, json={"rows": new_rows, "buttons": buttons})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [r["id"] for r in body["rows"]] == ["top"]
    assert body["buttons"]["site"]["dynamic_text"] is True  # placeholders in its text
    assert utc(body["updated_at"])
    assert (await client.get(BASE)).json()["rows"] == body["rows"]
    only_rows = await client.put(BASE, json={"rows": [{"id": "other", "buttons": ["info"]}]})
    assert only_rows.json()["buttons"]["site"]["action"] == "https://example.com"
    (entry, _second) = await rows(MenuLayoutHistory)
    assert entry.action == "update" and entry.user_info.startswith("api_token:")


async def test_a_layout_with_errors_is_400_naming_every_one(client):
    response = await client.put(
        BASE,
        json={
            "rows": [{"id": "a", "buttons": ["ghost", "info"]}, {"id": "a", "buttons": ["info"]}],
            "buttons": {
                "info": {"type": "builtin", "builtin_id": "info", "text": {"en": "i"}, "action": "menu_info"},
                "bad": {**LINK, "action": "ftp://x"},
                "app": {**LINK, "type": "mini_app", "action": "http://x"},
                "cb": {**LINK, "type": "callback", "action": "x" * 65},
                "nope": {"type": "builtin", "text": {"en": "?"}, "action": "x"},
            },
        },
    )
    assert response.status_code == 400
    detail = response.json()["detail"]
    for part in (
        "Duplicate row id 'a'",
        "Row 'a': button 'ghost' not found",
        "Button 'info' is placed more than once (rows 'a', 'a')",
        "Button 'bad': a url button needs an http://, https:// or tg:// URL",
        "Button 'app': a mini_app button needs an https:// URL",
        "Button 'cb': callback_data must be 1 to 64 bytes",
        "Button 'nope': unknown builtin button 'nope'",
    ):
        assert part in detail
    assert (await client.get(BASE)).json()["updated_at"] is None  # nothing saved


async def test_a_malformed_layout_is_422(client):
    response = await client.put(
        BASE, json={"rows": [{"id": "", "buttons": "x", "max_per_row": 5, "conditions": {"is_vip": True}}]}
    )
    assert response.status_code == 422
    locs = {tuple(e["loc"]) for e in response.json()["detail"]}
    assert {
        ("body", "rows", 0, "id"),
        ("body", "rows", 0, "buttons"),
        ("body", "rows", 0, "max_per_row"),
        ("body", "rows", 0, "conditions", "is_vip"),
    } <= locs


async def test_reset_brings_the_defaults_back_and_is_recorded(client, rows):
    await client.put(BASE, json={"rows": []})
    response = await client.post(f"{BASE}/reset")
    assert response.status_code == 200 and len(response.json()["rows"]) == 13
    assert [h.action for h in await rows(MenuLayoutHistory)] == ["update", "reset"]


async def test_callbacks_and_placeholders(client):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "faq", "type": "callback", "action": "menu_faq"})
    callbacks = (await client.get(f"{BASE}/available-callbacks")).json()
    assert callbacks["total"] == len(callbacks["items"]) == 39
    assert callbacks["categories"] == sorted(callbacks["categories"]) and "devices" in callbacks["categories"]
    faq = next(item for item in callbacks["items"] if item["callback_data"] == "menu_faq")
    assert faq["is_in_menu"] is True and faq["default_text"] == {"ru": "❓ FAQ", "en": "❓ FAQ"}
    rules = next(item for item in callbacks["items"] if item["callback_data"] == "menu_rules")
    assert rules["is_in_menu"] is False
    placeholders = (await client.get(f"{BASE}/placeholders")).json()
    assert placeholders["total"] == 7 and placeholders["items"][0]["placeholder"] == "{balance}"


async def test_export_then_import_replace_gives_the_same_layout(client):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "site", "row_id": "balance_row"})
    exported = (await client.get(f"{BASE}/export")).json()
    assert utc(exported["exported_at"]) and "bot_version" in exported
    await client.post(f"{BASE}/reset")
    payload = {key: exported[key] for key in ("version", "rows", "buttons")}
    imported = await client.post(f"{BASE}/import", json=payload)
    assert imported.status_code == 200
    assert imported.json() == {"success": True, "imported_rows": 13, "imported_buttons": 18, "warnings": []}
    layout = (await client.get(BASE)).json()
    assert layout["rows"] == exported["rows"] and layout["buttons"] == exported["buttons"]


async def test_import_merge_adds_only_what_is_new(client):
    payload = {
        "version": 1,
        "rows": [{"id": "balance_row", "buttons": []}, {"id": "links", "buttons": ["site"]}],
        "buttons": {"site": LINK, "info": {**LINK, "action": "https://other"}},
        "merge_mode": "merge",
    }
    response = await client.post(f"{BASE}/import", json=payload)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "imported_rows": 1,
        "imported_buttons": 1,
        "warnings": ["Button 'info' already exists, skipped", "Row 'balance_row' already exists, skipped"],
    }
    layout = (await client.get(BASE)).json()
    assert layout["rows"][-1]["id"] == "links" and layout["buttons"]["info"]["type"] == "builtin"
    bad = await client.post(f"{BASE}/import", json={**payload, "merge_mode": "append"})
    assert bad.status_code == 422
    broken = {"version": 1, "rows": [{"id": "x", "buttons": ["ghost"]}], "buttons": {}}
    refused = await client.post(f"{BASE}/import", json=broken)
    assert refused.status_code == 400 and "button 'ghost' not found" in refused.json()["detail"]


async def test_validate_reports_errors_and_warnings_without_saving(client):
    saved = await client.post(f"{BASE}/validate", json={})
    assert saved.status_code == 200 and saved.json()["is_valid"] is True
    body = {
        "rows": [{"id": "a", "buttons": ["ghost"]}, {"id": "empty", "buttons": []}],
        "buttons": {"off": {**LINK, "enabled": False}},
    }
    result = (await client.post(f"{BASE}/validate", json=body)).json()
    assert result["is_valid"] is False
    (error,) = result["errors"]
    assert error["loc"] == ["rows", "a", "buttons"] and error["type"] == "unknown_button"
    assert error["field"] == "rows.a.buttons" and error["severity"] == "error"
    assert error["msg"] == error["message"] == "Row 'a': button 'ghost' not found"
    kinds = {w["type"] for w in result["warnings"]}
    assert kinds == {"empty_row", "unplaced_button", "disabled_buttons"}
    assert (await client.get(BASE)).json()["updated_at"] is None


def _texts(preview):
    return [[b["text"] for b in row["buttons"]] for row in preview["rows"]]


async def test_preview_applies_visibility_and_conditions(client):
    guest = (await client.post(f"{BASE}/preview", json={"language": "en", "balance_kopeks": 150050})).json()
    texts = _texts(guest)
    assert texts[0] == ["💰 Balance: 1 500.50 ₽"]
    assert ["🎁 Free trial", "🛒 Buy subscription"] in texts
    flat = [t for row in texts for t in row]
    assert "🔗 Connect" not in flat and "⚙️ Admin panel" not in flat and "🧑‍⚖️ Moderation" not in flat
    assert guest["total_buttons"] == len(flat)
    subscriber = {
        "language": "ru",
        "has_active_subscription": True,
        "subscription_is_active": True,
        "is_admin": True,
    }
    texts = _texts((await client.post(f"{BASE}/preview", json=subscriber)).json())
    flat = [t for row in texts for t in row]
    assert texts[0] == ["🔗 Подключиться"] and "⚙️ Админ панель" in flat
    assert "🛒 Купить подписку" not in flat and "🎁 Пробный период" not in flat
    assert "🧑‍⚖️ Модерация" not in flat  # administrators do not see the moderators' button


async def test_preview_splits_rows_into_lines_and_checks_bounds(client):
    buttons = {
        f"b{n}": {**LINK, "text": {"en": f"B{n}"}, "conditions": {"min_balance_kopeks": 100 * n}}
        for n in range(5)
    }
    await client.put(
        BASE, json={"rows": [{"id": "r", "buttons": list(buttons), "max_per_row": 2}], "buttons": buttons}
    )
    lines = _texts(
        (await client.post(f"{BASE}/preview", json={"language": "en", "balance_kopeks": 300})).json()
    )
    assert lines == [["B0", "B1"], ["B2", "B3"]]


async def test_history_pages_entries_and_rolls_back(client, rows):
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "one"})
    await client.post(f"{BASE}/buttons", json={**LINK, "id": "two"})
    history = (await client.get(f"{BASE}/history", params={"limit": 1})).json()
    assert history["total"] == 2 and history["items"][0]["changes_summary"] == "Button 'two' added"
    first_id = (await client.get(f"{BASE}/history", params={"offset": 1})).json()["items"][0]["id"]
    entry = (await client.get(f"{BASE}/history/{first_id}")).json()
    assert (
        entry["action"] == "update"
        and "one" in entry["config"]["buttons"]
        and "two" not in entry["config"]["buttons"]
    )
    rolled = await client.post(f"{BASE}/history/{first_id}/rollback")
    assert rolled.status_code == 200 and "two" not in rolled.json()["buttons"]
    latest = (await client.get(f"{BASE}/history")).json()["items"][0]
    assert latest["action"] == "rollback" and latest["changes_summary"] == f"Rollback to history #{first_id}"


async def test_unknown_history_entries_are_404(client):
    for response in (
        await client.get(f"{BASE}/history/77"),
        await client.post(f"{BASE}/history/77/rollback"),
    ):
        assert response.status_code == 404 and response.json() == {"detail": "History entry 77 not found"}
    assert (await client.get(f"{BASE}/history/x")).status_code == 422


@pytest.fixture
def keep_three(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MENUS_HISTORY_KEEP", "3")


async def test_only_the_newest_history_is_kept(keep_three, client, rows):
    for n in range(5):
        await client.post(f"{BASE}/buttons", json={**LINK, "id": f"b{n}"})
    kept = await rows(MenuLayoutHistory)
    assert [h.changes_summary for h in kept] == [
        "Button 'b2' added",
        "Button 'b3' added",
        "Button 'b4' added",
    ]
