"""`/welcome-texts`: create, list, read, change, delete; one active text at a time."""

from __future__ import annotations

from subsvc_welcome_texts.service import render

URL = "/welcome-texts"


async def _create(client, **body):
    response = await client.post(URL, json={"text": "Привет, {user_name}!", **body})
    assert response.status_code == 201, response.text
    return response.json()


async def test_create_answers_the_record_with_the_token_as_author(client):
    created = await _create(client)
    assert created["text"] == "Привет, {user_name}!"
    assert created["is_active"] is True and created["is_enabled"] is True
    assert isinstance(created["created_by"], int)
    assert created["created_at"].endswith(("Z", "+00:00"))
    fetched = await client.get(f"{URL}/{created['id']}")
    assert fetched.status_code == 200
    assert fetched.json() == created


async def test_a_new_active_text_deactivates_the_previous_one(client):
    first = await _create(client, text="one")
    second = await _create(client, text="two")
    assert (await client.get(f"{URL}/{first['id']}")).json()["is_active"] is False
    assert (await client.get(f"{URL}/{second['id']}")).json()["is_active"] is True
    inactive = await _create(client, text="three", is_active=False)
    assert inactive["is_active"] is False
    assert (await client.get(f"{URL}/{second['id']}")).json()["is_active"] is True


async def test_list_is_newest_first_paged_and_filters_inactive(client):
    ids = [(await _create(client, text=f"t{i}"))["id"] for i in range(3)]
    page = (await client.get(URL, params={"limit": 2})).json()
    assert page["total"] == 3 and page["limit"] == 2 and page["offset"] == 0
    assert [item["id"] for item in page["items"]] == [ids[2], ids[1]]
    rest = (await client.get(URL, params={"limit": 2, "offset": 2})).json()
    assert [item["id"] for item in rest["items"]] == [ids[0]]
    active = (await client.get(URL, params={"include_inactive": "false"})).json()
    assert active["total"] == 1 and [item["id"] for item in active["items"]] == [ids[2]]


async def test_patch_changes_only_what_is_sent_and_activation_moves(client):
    first = await _create(client, text="one")
    second = await _create(client, text="two")
    response = await client.patch(f"{URL}/{first['id']}", json={"is_active": True, "text": None})
    assert response.status_code == 200
    body = response.json()
    assert body["is_active"] is True and body["text"] == "one"
    assert body["updated_at"] >= first["updated_at"]
    assert (await client.get(f"{URL}/{second['id']}")).json()["is_active"] is False
    disabled = (await client.patch(f"{URL}/{first['id']}", json={"is_enabled": False})).json()
    assert disabled["is_enabled"] is False and disabled["is_active"] is True and disabled["text"] == "one"


async def test_delete_then_404(client):
    created = await _create(client)
    response = await client.delete(f"{URL}/{created['id']}")
    assert response.status_code == 204 and response.content == b""
    for method in ("get", "delete"):
        missing = await client.request(method.upper(), f"{URL}/{created['id']}")
        assert missing.status_code == 404
        assert missing.json() == {"detail": "Welcome text not found"}
    patched = await client.patch(f"{URL}/{created['id']}", json={"text": "x"})
    assert patched.status_code == 404


async def test_validation_and_authentication(client, anon_client):
    assert (await anon_client.get(URL)).status_code == 401
    empty = await client.post(URL, json={"text": ""})
    assert empty.status_code == 422 and empty.json()["detail"][0]["loc"] == ["body", "text"]
    assert (await client.post(URL, json={"text": "x" * 4001})).status_code == 422
    assert (await client.get(f"{URL}/abc")).status_code == 422
    assert (await client.get(URL, params={"limit": 0})).status_code == 422
    assert (await client.get(URL, params={"limit": 201})).status_code == 422


def test_placeholders_are_filled_for_a_user():
    text = "{user_name} {first_name} {username} {username_clean}"
    assert render(text, "Ann", "ann") == "Ann Ann @ann ann"
    assert render(text, None, None) == "друг друг друг друг"
