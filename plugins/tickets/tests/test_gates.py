"""What tickets takes from support and media: the ``contact`` mode closes the cabinet's
tickets; attachments must be the writer's own uploads; the cabinet gets download tokens."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from .conftest import NEW_TICKET, detail, open_ticket

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
PDF = b"%PDF-1.4\n" + b"plain document bytes\n" * 50
DISABLED = "Support tickets are disabled"


async def upload(http: httpx2.AsyncClient, name: str = "shot.png") -> str:
    answer = await http.post("/cabinet/media/upload", files={"file": (name, PNG, "image/png")})
    file_id: str = detail(answer, 201)["file_id"]
    return file_id


async def test_contact_mode_closes_cabinet_tickets(member: httpx2.AsyncClient, admin: httpx2.AsyncClient):
    tid = (await open_ticket(member))["id"]
    detail(await admin.patch("/cabinet/admin/tickets/settings", json={"support_system_mode": "contact"}))
    for answer in (
        await member.get("/cabinet/tickets"),
        await member.post("/cabinet/tickets", json=NEW_TICKET),
        await member.get(f"/cabinet/tickets/{tid}"),
        await member.post(f"/cabinet/tickets/{tid}/messages", json={"message": "Hello"}),
    ):
        assert detail(answer, 403) == DISABLED
    # administrators still work the tickets
    assert detail(await admin.get(f"/cabinet/admin/tickets/{tid}"))["id"] == tid
    detail(await admin.patch("/cabinet/admin/tickets/settings", json={"support_system_mode": "both"}))
    assert detail(await member.get("/cabinet/tickets"))["total"] == 1


async def test_own_uploads_attach_with_tokens(
    member: httpx2.AsyncClient, admin: httpx2.AsyncClient, outbox: Any
):
    first, second = await upload(member), await upload(member, "two.png")
    created = await open_ticket(
        member,
        message="",
        media_items=[
            {"type": "photo", "file_id": first, "caption": "error"},
            {"type": "photo", "file_id": second},
        ],
    )
    message = created["messages"][0]
    assert message["has_media"] is True and message["message_text"] == ""
    legacy = (message["media_type"], message["media_file_id"], message["media_caption"])
    assert legacy == ("photo", first, "error")
    assert message["media_token"] and all(item["token"] for item in message["media_items"])
    assert [item["file_id"] for item in message["media_items"]] == [first, second]
    # the token downloads the file from the cabinet
    download = await member.get(f"/cabinet/media/{first}", params={"token": message["media_token"]})
    assert download.status_code == 200 and download.content == PNG
    ticket_created = next(p for kind, p in await outbox() if kind == "ticket.created")
    assert (ticket_created["media_type"], ticket_created["media_file_id"]) == ("photo", first)

    admins = await upload(admin, "answer.png")
    reply = detail(
        await admin.post(
            f"/cabinet/admin/tickets/{created['id']}/reply",
            json={"message": "See the picture", "media_type": "photo", "media_file_id": admins},
        )
    )
    assert reply["media_file_id"] == admins and reply["media_token"]


@pytest.mark.parametrize("who", ["member", "admin"])
async def test_others_uploads_refused(member: httpx2.AsyncClient, admin: httpx2.AsyncClient, who: str):
    tid = (await open_ticket(member))["id"]
    admins, members = await upload(admin), await upload(member)
    if who == "member":
        body = {"message": "Look", "media_type": "photo", "media_file_id": admins}
        refused = await member.post(f"/cabinet/tickets/{tid}/messages", json=body)
    else:
        body = {"message": "Look", "media_items": [{"type": "photo", "file_id": members}]}
        refused = await admin.post(f"/cabinet/admin/tickets/{tid}/reply", json=body)
    assert detail(refused, 400).startswith("Unknown media file: ")
    unknown = {"title": "Help", "media_type": "photo", "media_file_id": "AgAD_never_uploaded_1"}
    assert "AgAD_never_uploaded_1" in detail(await member.post("/cabinet/tickets", json=unknown), 400)


async def test_web_api_reply_with_media(
    member: httpx2.AsyncClient, client: httpx2.AsyncClient, fake_bot_api: Any
):
    tid = (await open_ticket(member))["id"]
    uploaded = detail(
        await client.post("/upload", files={"file": ("guide.pdf", PDF, "application/pdf")}), 201
    )
    file_id = uploaded["file_id"]
    body = {"media_type": "document", "media_file_id": file_id, "media_caption": "The guide"}
    answer = detail(await client.post(f"/tickets/{tid}/reply", json=body), 201)
    message = answer["message"]
    assert message["message_text"] == "The guide" and message["has_media"] is True
    media = detail(await client.get(f"/tickets/{tid}/messages/{message['id']}/media"))
    assert media["media_file_id"] == file_id and media["media_caption"] == "The guide"
    assert media["media_url"] == f"http://testserver/media/{file_id}"
    # a cabinet user's upload is not the token's to attach
    members = await upload(member)
    refused = await client.post(
        f"/tickets/{tid}/reply", json={"media_type": "photo", "media_file_id": members}
    )
    assert detail(refused, 400).startswith("Unknown media file: ")
    # a file the messenger no longer finds: no URL
    fake_bot_api.fail("getFile", 400, "Bad Request: invalid file_id", times=1)
    gone = detail(await client.get(f"/tickets/{tid}/messages/{message['id']}/media"))
    assert gone["media_file_id"] == file_id and gone["media_url"] is None
