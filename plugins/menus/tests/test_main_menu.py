"""`/main-menu`: the extra buttons and the messages, every operation and rule."""

from __future__ import annotations

from subsvc_menus.models import MainMenuButton, UserMessage

from subsvc.events import OutboxEvent

BUTTONS = "/main-menu/buttons"
MESSAGES = "/main-menu/messages"


async def _button(client, **fields):
    body = {"text": "Site", "action_type": "url", "action_value": "https://example.com", **fields}
    response = await client.post(BUTTONS, json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def test_a_button_is_created_with_defaults_and_goes_last(client, rows):
    first = await _button(client)
    assert first["visibility"] == "all" and first["is_active"] is True and first["display_order"] == 0
    second = await _button(client, text="App", action_type="mini_app", action_value="https://app.example.com")
    assert second["display_order"] == 1
    placed = await _button(client, text="Top", display_order=0, visibility="subscribers")
    assert placed["display_order"] == 0 and placed["visibility"] == "subscribers"
    stored = await rows(MainMenuButton)
    assert [b.text for b in stored] == ["Site", "App", "Top"]
    assert stored[0].created_at.tzinfo is not None


async def test_the_list_is_in_display_order_and_paged(client):
    for order in (3, 1, 2):
        await _button(client, text=f"B{order}", display_order=order)
    page = (await client.get(BUTTONS, params={"limit": 2})).json()
    assert page["total"] == 3 and page["limit"] == 2 and page["offset"] == 0
    assert [b["text"] for b in page["items"]] == ["B1", "B2"]
    rest = (await client.get(BUTTONS, params={"limit": 2, "offset": 2})).json()
    assert [b["text"] for b in rest["items"]] == ["B3"]
    assert (await client.get(BUTTONS, params={"limit": 201})).status_code == 422
    assert (await client.get(BUTTONS, params={"offset": -1})).status_code == 422


REFUSED_ACTIONS = [
    ("url", "example.com", "action_value of a url button must be an http://, https:// or tg:// URL"),
    ("mini_app", "http://example.com", "action_value of a mini_app button must be an https:// URL"),
]


async def test_an_action_its_type_cannot_open_is_400(client, rows):
    for action_type, value, message in REFUSED_ACTIONS:
        body = {"text": "X", "action_type": action_type, "action_value": value}
        response = await client.post(BUTTONS, json=body)
        assert response.status_code == 400 and response.json() == {"detail": message}
    assert await rows(MainMenuButton) == []


async def test_create_validates_fields_as_422(client):
    response = await client.post(
        BUTTONS, json={"text": "", "action_type": "call", "action_value": "x" * 1025}
    )
    assert response.status_code == 422
    assert {tuple(e["loc"]) for e in response.json()["detail"]} == {
        ("body", "text"),
        ("body", "action_type"),
        ("body", "action_value"),
    }


async def test_update_changes_what_is_given_and_checks_the_result(client):
    button = await _button(client)
    response = await client.patch(
        f"{BUTTONS}/{button['id']}", json={"text": "Docs", "is_active": False, "visibility": None}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["text"] == "Docs" and body["is_active"] is False and body["visibility"] == "all"
    assert body["updated_at"] >= button["updated_at"]
    switched = await client.patch(f"{BUTTONS}/{button['id']}", json={"action_type": "mini_app"})
    assert switched.status_code == 200 and switched.json()["action_type"] == "mini_app"
    refused = await client.patch(
        f"{BUTTONS}/{button['id']}", json={"action_value": "http://plain.example.com"}
    )
    assert refused.status_code == 400
    assert (await client.get(BUTTONS)).json()["items"][0]["action_value"] == "https://example.com"


async def test_unknown_buttons_are_404_and_bad_ids_422(client):
    assert (await client.patch(f"{BUTTONS}/999", json={"text": "x"})).json() == {
        "detail": "Main menu button not found"
    }
    response = await client.delete(f"{BUTTONS}/999")
    assert response.status_code == 404 and response.json() == {"detail": "Main menu button not found"}
    assert (await client.delete(f"{BUTTONS}/abc")).status_code == 422


async def test_delete_is_204_with_an_empty_body(client, rows):
    button = await _button(client)
    response = await client.delete(f"{BUTTONS}/{button['id']}")
    assert response.status_code == 204 and response.content == b""
    assert await rows(MainMenuButton) == []


async def test_changes_are_published_as_events(client, rows):
    button = await _button(client)
    await client.delete(f"{BUTTONS}/{button['id']}")
    events = await rows(OutboxEvent, event_type="menu.updated")
    assert [e.payload for e in events] == [
        {"document": "main_menu_buttons", "action": "create"},
        {"document": "main_menu_buttons", "action": "delete"},
    ]


async def _message(client, **fields):
    response = await client.post(MESSAGES, json={"message_text": "<b>Hello</b>", **fields})
    assert response.status_code == 201, response.text
    return response.json()


async def test_a_message_is_created_by_the_token(client, rows):
    message = await _message(client, sort_order=2)
    assert message["is_active"] is True and message["sort_order"] == 2
    (stored,) = await rows(UserMessage)
    assert message["created_by"] == stored.created_by and stored.created_by is not None


REFUSED_HTML = [
    ("<div>x</div>", "Invalid HTML: unsupported tag <div>"),
    ("<b>x", "Invalid HTML: <b> is not closed"),
    ("<b><i>x</b></i>", "Invalid HTML: </b> found where </i> was expected"),
    ("<a>x</a>", "Invalid HTML: <a> needs an href attribute"),
    ("<span>x</span>", 'Invalid HTML: <span> is allowed only as <span class="tg-spoiler">'),
    ("a<br>b", "Invalid HTML: unsupported tag <br>"),
]


async def test_only_html_the_messenger_accepts(client, rows):
    for text, message in REFUSED_HTML:
        response = await client.post(MESSAGES, json={"message_text": text})
        assert response.status_code == 400
        assert response.json()["detail"].startswith(message)
    assert await rows(UserMessage) == []
    text = '<b>a</b><i>b</i><a href="https://x.y">c</a><span class="tg-spoiler">d</span>'
    text += "\n<pre><code>e</code></pre>"
    assert (await _message(client, message_text=text))["message_text"] == text


async def test_messages_list_by_sort_order_and_can_leave_out_inactive(client):
    await _message(client, message_text="two", sort_order=2)
    await _message(client, message_text="one", sort_order=1, is_active=False)
    listed = (await client.get(MESSAGES)).json()
    assert [m["message_text"] for m in listed["items"]] == ["one", "two"] and listed["total"] == 2
    active = (await client.get(MESSAGES, params={"include_inactive": "false"})).json()
    assert [m["message_text"] for m in active["items"]] == ["two"] and active["total"] == 1
    assert (await client.get(MESSAGES, params={"limit": 0})).status_code == 422


async def test_update_toggle_and_delete_a_message(client, rows):
    message = await _message(client)
    path = f"{MESSAGES}/{message['id']}"
    updated = await client.patch(
        path, json={"message_text": "<i>new</i>", "sort_order": 5, "is_active": None}
    )
    assert updated.status_code == 200
    assert updated.json()["message_text"] == "<i>new</i>" and updated.json()["is_active"] is True
    assert (await client.patch(path, json={"message_text": "<x>"})).status_code == 400
    assert (await client.patch(path, json={"message_text": ""})).status_code == 422
    toggled = await client.post(f"{path}/toggle")
    assert toggled.status_code == 200 and toggled.json()["is_active"] is False
    assert (await client.post(f"{path}/toggle")).json()["is_active"] is True
    deleted = await client.delete(path)
    assert deleted.status_code == 204 and deleted.content == b""
    assert await rows(UserMessage) == []


async def test_unknown_messages_are_404(client):
    for response in (
        await client.patch(f"{MESSAGES}/5", json={"sort_order": 1}),
        await client.post(f"{MESSAGES}/5/toggle"),
        await client.delete(f"{MESSAGES}/5"),
    ):
        assert response.status_code == 404 and response.json() == {"detail": "User message not found"}
    assert (await client.post(f"{MESSAGES}/x/toggle")).status_code == 422
