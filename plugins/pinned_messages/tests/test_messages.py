"""The Web API's pinned messages without sending: create, read, list, edit, activate,
deactivate, delete; at most one active; the reference's texts and statuses."""

from __future__ import annotations

from datetime import datetime

from subsvc_pinned_messages.models import PinnedMessage

WEB = "/pinned-messages"
FIELDS = {
    "id",
    "content",
    "media_type",
    "media_file_id",
    "send_before_menu",
    "send_on_every_start",
    "is_active",
    "created_by",
    "created_at",
    "updated_at",
}


async def _create(client, content: str = "<b>Hello</b>", **fields) -> dict:
    response = await client.post(WEB, json={"content": content, **fields})
    assert response.status_code == 201, response.text
    return response.json()


async def test_create_answers_201_with_the_message_and_no_sending(client, fake_bot_api):
    answer = await _create(client, "  <b>Hi</b> & welcome  ", send_before_menu=False)
    assert (answer["sent_count"], answer["failed_count"], answer["broadcast_id"]) == (0, 0, None)
    message = answer["message"]
    assert set(message) == FIELDS
    assert message["content"] == "<b>Hi</b> &amp; welcome"  # trimmed; a stray & escaped
    assert (message["send_before_menu"], message["send_on_every_start"], message["is_active"]) == (
        False,
        True,
        True,
    )
    assert (message["media_type"], message["media_file_id"], message["created_by"]) == (None, None, None)
    assert datetime.fromisoformat(message["created_at"]).utcoffset().total_seconds() == 0
    assert fake_bot_api.calls == []


async def test_a_new_message_deactivates_the_one_before(client, rows):
    first = (await _create(client, "one"))["message"]
    second = (await _create(client, "two"))["message"]
    stored = {row.id: row.is_active for row in await rows(PinnedMessage)}
    assert stored == {first["id"]: False, second["id"]: True}
    active = (await client.get(f"{WEB}/active")).json()
    assert active["id"] == second["id"]


async def test_list_is_newest_first_paged_and_filters_active(client):
    ids = [(await _create(client, f"m{n}"))["message"]["id"] for n in range(5)]
    page = (await client.get(WEB, params={"limit": 2, "offset": 1})).json()
    assert (page["total"], page["limit"], page["offset"]) == (5, 2, 1)
    assert [item["id"] for item in page["items"]] == [ids[3], ids[2]]
    default = (await client.get(WEB)).json()
    assert (default["limit"], default["offset"], len(default["items"])) == (20, 0, 5)
    active = (await client.get(WEB, params={"active_only": "true"})).json()
    assert (active["total"], [item["id"] for item in active["items"]]) == (1, [ids[4]])


async def test_list_parameters_are_validated(client):
    for params in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"active_only": "maybe"}):
        response = await client.get(WEB, params=params)
        assert response.status_code == 422, params
        assert response.json()["detail"][0]["loc"][0] == "query"


async def test_no_active_message_is_null(client):
    response = await client.get(f"{WEB}/active")
    assert (response.status_code, response.json()) == (200, None)
    deactivated = await client.post(f"{WEB}/active/deactivate")
    assert (deactivated.status_code, deactivated.json()) == (200, None)


async def test_deactivate_returns_the_message_it_deactivated(client, fake_bot_api):
    created = (await _create(client))["message"]
    response = await client.post(f"{WEB}/active/deactivate")
    assert response.status_code == 200
    assert (response.json()["id"], response.json()["is_active"]) == (created["id"], False)
    assert (await client.get(f"{WEB}/active")).json() is None
    assert fake_bot_api.calls == []  # nothing is unpinned in chats


async def test_get_one_and_unknown_ids(client):
    created = (await _create(client))["message"]
    found = await client.get(f"{WEB}/{created['id']}")
    assert (found.status_code, found.json()) == (200, created)
    for unknown in ("999", "0", "-3", "2147483647"):
        response = await client.get(f"{WEB}/{unknown}")
        assert (response.status_code, response.json()) == (404, {"detail": "Pinned message not found"})
    for beyond, error in (("99999999999", "less_than_equal"), ("-99999999999", "greater_than_equal")):
        response = await client.get(f"{WEB}/{beyond}")
        assert response.status_code == 422
        assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [(["path", "message_id"], error)]


async def test_patch_changes_given_fields_and_checks_content(client):
    created = (await _create(client, "old"))["message"]
    path = f"{WEB}/{created['id']}"
    changed = await client.patch(path, json={"content": " <i>new</i> ", "send_on_every_start": False})
    assert changed.status_code == 200
    body = changed.json()
    assert (body["content"], body["send_on_every_start"], body["send_before_menu"]) == (
        "<i>new</i>",
        False,
        True,
    )
    assert body["updated_at"] >= created["updated_at"]
    media = await client.patch(path, json={"media": {"type": "video", "file_id": "BAACAgIAAx"}})
    assert (media.json()["media_type"], media.json()["media_file_id"]) == ("video", "BAACAgIAAx")
    bad = await client.patch(path, json={"content": "<b>open"})
    assert (bad.status_code, bad.json()) == (
        400,
        {"detail": "Invalid HTML: <b> is not closed (at character 1)"},
    )
    wrong_media = await client.patch(path, json={"media": {"type": "document", "file_id": "x"}})
    assert wrong_media.status_code == 422
    missing = await client.patch(f"{WEB}/4242", json={"content": "x"})
    assert (missing.status_code, missing.json()) == (404, {"detail": "Pinned message not found"})


async def test_settings_change_only_the_flags(client):
    created = (await _create(client, "text"))["message"]
    response = await client.patch(f"{WEB}/{created['id']}/settings", json={"send_before_menu": False})
    assert response.status_code == 200
    body = response.json()
    assert (body["send_before_menu"], body["send_on_every_start"], body["content"]) == (False, True, "text")
    unchanged = await client.patch(f"{WEB}/{created['id']}/settings", json={})
    assert unchanged.json()["send_before_menu"] is False
    missing = await client.patch(f"{WEB}/4242/settings", json={})
    assert missing.status_code == 404


async def test_activate_makes_one_active_without_sending(client, fake_bot_api):
    first = (await _create(client, "one"))["message"]
    await _create(client, "two")
    response = await client.post(f"{WEB}/{first['id']}/activate")
    assert response.status_code == 200
    body = response.json()
    assert (
        body["message"]["id"],
        body["message"]["is_active"],
        body["sent_count"],
        body["failed_count"],
    ) == (
        first["id"],
        True,
        0,
        0,
    )
    listed = (await client.get(WEB, params={"active_only": True})).json()
    assert [item["id"] for item in listed["items"]] == [first["id"]]
    again = await client.post(f"{WEB}/{first['id']}/activate")
    assert again.json()["message"]["is_active"] is True
    missing = await client.post(f"{WEB}/4242/activate")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Pinned message not found"})
    assert fake_bot_api.calls == []


async def test_delete_is_204_with_an_empty_body_even_for_the_active_one(client, rows):
    created = (await _create(client))["message"]
    response = await client.delete(f"{WEB}/{created['id']}")
    assert (response.status_code, response.content) == (204, b"")
    assert await rows(PinnedMessage) == []
    assert (await client.get(f"{WEB}/active")).json() is None
    again = await client.delete(f"{WEB}/{created['id']}")
    assert (again.status_code, again.json()) == (404, {"detail": "Pinned message not found"})


async def test_a_non_integer_id_is_422(client):
    for method in ("GET", "DELETE", "PATCH"):
        response = await client.request(method, f"{WEB}/abc", json={} if method == "PATCH" else None)
        assert response.status_code == 422
        detail = response.json()["detail"]
        assert (detail[0]["type"], detail[0]["loc"]) == ("int_parsing", ["path", "message_id"])


REFUSED = [
    ({"content": "   "}, 400, "Either content or media must be provided"),
    ({"content": "<b></b>"}, 400, "Either content or media must be provided"),
    ({"content": "<div>x</div>"}, 400, None),
    ({"content": ""}, 422, None),
    ({"content": "x" * 4001}, 422, None),
    ({"content": "x", "media": {"type": "audio", "file_id": "a"}}, 422, None),
    ({}, 422, None),
]


async def test_create_refuses_what_cannot_be_sent(client, rows):
    for body, status, detail in REFUSED:
        response = await client.post(WEB, json=body)
        assert response.status_code == status, (body, response.text)
        if detail:
            assert response.json() == {"detail": detail}
        if status == 400 and detail is None:
            assert response.json()["detail"].startswith("Invalid HTML: unsupported tag <div>")
    assert await rows(PinnedMessage) == []


async def test_media_with_blank_text_is_accepted(client):
    answer = await _create(client, " ", media={"type": "photo", "file_id": "AgACAgIAAx"})
    message = answer["message"]
    assert (message["content"], message["media_type"], message["media_file_id"]) == (
        "",
        "photo",
        "AgACAgIAAx",
    )


async def test_without_a_key_every_operation_is_401(anon_client):
    for method, path in [("GET", WEB), ("POST", WEB), ("GET", f"{WEB}/1"), ("DELETE", f"{WEB}/1")]:
        response = await anon_client.request(
            method, path, json={"content": "x"} if method == "POST" else None
        )
        assert response.status_code == 401
