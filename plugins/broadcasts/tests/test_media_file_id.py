"""A broadcast's media file id, through both creates: an empty one or one longer than its
column (512) is refused with 422 before anything is stored (an empty one was stored, and its
sender then failed at every lease; a longer one answered 500 on PostgreSQL); the longest one
is stored and sent."""

from __future__ import annotations

ADMIN = "/cabinet/admin/broadcasts"


def _body(file_id: str) -> dict[str, object]:
    return {"target": "all", "message_text": "x", "media": {"type": "photo", "file_id": file_id}}


async def test_an_empty_or_too_long_file_id_is_refused(client, admin, users):
    await users(2)
    for file_id in ("", "A" * 513):
        for response in (
            await client.post("/broadcasts", json=_body(file_id)),
            await admin.post(ADMIN, json=_body(file_id)),
        ):
            assert response.status_code == 422, response.text
            assert [error["loc"] for error in response.json()["detail"]] == [["body", "media", "file_id"]]
    assert (await client.get("/broadcasts")).json()["total"] == 0


async def test_the_longest_file_id_is_stored_and_sent(client, users, finished, fake_bot_api):
    await users(1)
    response = await client.post("/broadcasts", json=_body("A" * 512))
    assert response.status_code == 201, response.text
    assert response.json()["media_file_id"] == "A" * 512
    done = await finished(response.json()["id"])
    assert (done.status, done.sent_count) == ("completed", 1)
    assert [call.params["photo"] for call in fake_bot_api.calls_of("sendPhoto")] == ["A" * 512]
