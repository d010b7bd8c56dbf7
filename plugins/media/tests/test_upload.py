"""Uploads over HTTP (Web API and cabinet) staged through the fake Bot API: each kind, the
record of the uploader, the limits and the refused types, the messenger's failures."""

from __future__ import annotations

import pytest
from subsvc_media.checks import EMPTY, INVALID_IMAGE, MAX_FILE_BYTES, NOT_ALLOWED, TOO_LARGE
from subsvc_media.models import MediaUpload
from subsvc_media.routes import MAX_FORM_BYTES
from subsvc_media.service import NO_CHAT, UNAVAILABLE

from subsvc.testing import ADMIN_MESSENGER_ID
from subsvc.tokens.models import ApiToken

from .conftest import GIF, JPEG, MP4, PDF, PNG, SVG, WEBP

CHAT = ADMIN_MESSENGER_ID  # no ADMIN_NOTIFICATIONS_CHAT_ID: the first administrator's chat


@pytest.mark.parametrize(
    ("kind", "name", "data", "content_type", "method"),
    [
        ("photo", "a.png", PNG, "image/png", "sendPhoto"),
        ("photo", "a.jpg", JPEG, "image/jpeg", "sendPhoto"),
        ("photo", "a.gif", GIF, "image/gif", "sendPhoto"),
        ("photo", "a.webp", WEBP, "image/webp", "sendPhoto"),
        ("video", "clip.mp4", MP4, "video/mp4", "sendVideo"),
        ("document", "report.pdf", PDF, "application/pdf", "sendDocument"),
    ],
)
async def test_the_web_api_stages_each_kind_and_keeps_the_message(
    client, fake_bot_api, rows, kind, name, data, content_type, method
):
    r = await client.post(
        "/upload",
        data={"media_type": f" {kind.upper()} ", "caption": "For the FAQ"},
        files={"file": (name, data, content_type)},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["media_type"] == kind
    assert body["media_url"] == f"http://testserver/media/{body['file_id']}"
    assert body["file_unique_id"]
    assert fake_bot_api.files[body["file_id"]].content == data  # the largest photo: the original
    [call] = fake_bot_api.calls_of(method)
    assert call.params["caption"] == "For the FAQ"
    assert "disable_notification" not in call.params
    assert len(fake_bot_api.sent_to(CHAT)) == 1  # administrators see it in the staging chat
    [row] = await rows(MediaUpload)
    [token] = await rows(ApiToken)
    assert (row.file_id, row.media_type, row.size) == (body["file_id"], kind, len(data))
    assert (row.uploader_user_id, row.uploader_token_id) == (None, token.id)


async def test_the_web_api_default_kind_is_document(client, fake_bot_api):
    r = await client.post("/upload", files={"file": ("notes.txt", b"plain text", "text/plain")})
    assert r.status_code == 201 and r.json()["media_type"] == "document"
    assert fake_bot_api.calls_of("sendDocument")


async def test_the_cabinet_stages_silently_and_deletes_the_staging_message(member, fake_bot_api, rows):
    r = await member.post("/cabinet/media/upload", files={"file": ("me.jpg", JPEG, "image/jpeg")})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["media_type"] == "photo"  # the cabinet's default kind
    assert body["media_url"].startswith(f"http://testserver/cabinet/media/{body['file_id']}?token=")
    [call] = fake_bot_api.calls_of("sendPhoto")
    assert call.params["disable_notification"] == "true" and call.params["chat_id"] == str(CHAT)
    assert fake_bot_api.calls_of("deleteMessage") and fake_bot_api.sent_to(CHAT) == []
    [row] = await rows(MediaUpload)
    assert (row.uploader_user_id, row.uploader_token_id) == (2, None)


async def test_a_failed_deletion_of_the_staging_message_still_answers_the_file(member, fake_bot_api):
    fake_bot_api.fail("deleteMessage", 400, "Bad Request: message can't be deleted")
    r = await member.post(
        "/cabinet/media/upload", data={"media_type": "document"}, files={"file": ("a.pdf", PDF)}
    )
    assert r.status_code == 201
    assert len(fake_bot_api.sent_to(CHAT)) == 1


async def test_a_file_above_the_global_body_limit_but_within_10_mib_is_accepted(client, member, fake_bot_api):
    data = b"%PDF-1.4\n" + bytes(3 * 1024 * 1024)  # MAX_BODY_BYTES is 1 MiB
    r = await client.post("/upload", files={"file": ("big.pdf", data, "application/pdf")})
    assert r.status_code == 201, r.text
    assert fake_bot_api.files[r.json()["file_id"]].content == data


async def test_the_limit_is_10_mib_on_both_apis(client, member, fake_bot_api):
    at_limit = b"%PDF-1.4\n" + bytes(MAX_FILE_BYTES - 9)
    over = at_limit + b"!"
    r = await member.post(
        "/cabinet/media/upload", data={"media_type": "document"}, files={"file": ("a.pdf", at_limit)}
    )
    assert r.status_code == 201, r.text
    for http, path in ((client, "/upload"), (member, "/cabinet/media/upload")):
        r = await http.post(path, data={"media_type": "document"}, files={"file": ("a.pdf", over)})
        assert (r.status_code, r.json()) == (400, {"detail": TOO_LARGE})
    # far larger: refused while it streams in, before the form is read
    r = await client.post("/upload", files={"file": ("a.pdf", bytes(MAX_FORM_BYTES + 1))})
    assert r.status_code == 413
    assert len(fake_bot_api.calls_of("sendDocument")) == 1


async def test_unknown_kinds_and_empty_files_are_refused(client, member, fake_bot_api):
    r = await client.post("/upload", data={"media_type": "audio"}, files={"file": ("a.mp3", b"ID3")})
    assert (r.status_code, r.json()) == (400, {"detail": "Unsupported media type"})
    r = await member.post(
        "/cabinet/media/upload", data={"media_type": "sticker"}, files={"file": ("a.png", PNG)}
    )
    assert (r.status_code, r.json()) == (
        400,
        {"detail": "Unsupported media type. Allowed: photo, video, document"},
    )
    for http, path in ((client, "/upload"), (member, "/cabinet/media/upload")):
        r = await http.post(path, files={"file": ("a.png", b"", "image/png")})
        assert (r.status_code, r.json()) == (400, {"detail": EMPTY})
    r = await client.post("/upload", data={"media_type": "document"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "file"]
    assert fake_bot_api.calls == []


@pytest.mark.parametrize(
    ("kind", "name", "data", "content_type", "detail"),
    [
        ("photo", "cat.png", SVG, "image/png", INVALID_IMAGE),  # an SVG renamed .png
        ("document", "cat.png", SVG, "image/png", NOT_ALLOWED),
        ("document", "cat.txt", b"\xef\xbb\xbf \n<!DOCTYPE html><p>hi", "text/plain", NOT_ALLOWED),
        ("document", "page.txt", b"\n\t<html><body>", "text/plain", NOT_ALLOWED),
        ("document", "x.txt", b"<?xml version='1.0'?><svg/>", "text/plain", NOT_ALLOWED),
        ("document", "x.bin", b"  <SCRIPT>alert(1)</SCRIPT>", None, NOT_ALLOWED),
        ("document", "x.bin", "\ufeff<svg onload=x>".encode("utf-16"), None, NOT_ALLOWED),
        ("document", "drawing.svg", PDF, "application/pdf", NOT_ALLOWED),
        ("document", "index.HTML", PDF, None, NOT_ALLOWED),
        ("document", "app.mjs", PDF, None, NOT_ALLOWED),
        ("document", "a.pdf", PDF, "image/svg+xml", NOT_ALLOWED),
        ("document", "a.pdf", PDF, "text/html; charset=utf-8", NOT_ALLOWED),
        ("document", "a.pdf", PDF, "application/javascript", NOT_ALLOWED),
        ("video", "a.xml", MP4, "video/mp4", NOT_ALLOWED),
        ("photo", "a.png", PNG, "text/plain", INVALID_IMAGE),
        ("photo", "a.png", PDF, "image/png", INVALID_IMAGE),
        ("photo", "a.svg", PNG, "image/png", NOT_ALLOWED),
    ],
)
async def test_active_content_and_fake_images_are_refused_on_both_apis(
    client, member, fake_bot_api, rows, kind, name, data, content_type, detail
):
    file = (name, data, content_type) if content_type else (name, data)
    for http, path in ((client, "/upload"), (member, "/cabinet/media/upload")):
        r = await http.post(path, data={"media_type": kind}, files={"file": file})
        assert (r.status_code, r.json()) == (400, {"detail": detail}), path
    assert fake_bot_api.calls == [] and await rows(MediaUpload) == []


async def test_no_staging_chat_is_503_with_its_reason(client, member, app, monkeypatch, fake_bot_api):
    settings = app.state.settings.model_copy(update={"ADMIN_IDS": [], "ADMIN_NOTIFICATIONS_CHAT_ID": None})
    monkeypatch.setattr(app.state, "settings", settings)
    for http, path in ((client, "/upload"), (member, "/cabinet/media/upload")):
        r = await http.post(path, files={"file": ("a.png", PNG, "image/png")})
        assert (r.status_code, r.json()) == (503, {"detail": NO_CHAT})
    assert fake_bot_api.calls == []


async def test_the_notifications_chat_is_the_staging_chat(client, app, monkeypatch, fake_bot_api):
    settings = app.state.settings.model_copy(update={"ADMIN_NOTIFICATIONS_CHAT_ID": "-100123"})
    monkeypatch.setattr(app.state, "settings", settings)
    assert (await client.post("/upload", files={"file": ("a.pdf", PDF)})).status_code == 201
    assert len(fake_bot_api.sent_to(-100123)) == 1


async def test_a_refusing_messenger_is_502_and_a_failing_one_503(client, member, fake_bot_api, rows):
    fake_bot_api.fail("sendPhoto", 400, "Bad Request: IMAGE_PROCESS_FAILED")
    r = await member.post("/cabinet/media/upload", files={"file": ("a.png", PNG, "image/png")})
    assert (r.status_code, r.json()) == (
        502,
        {"detail": "The messenger refused the upload: Bad Request: IMAGE_PROCESS_FAILED"},
    )
    fake_bot_api.fail("sendDocument", 502, "Bad Gateway")
    r = await client.post("/upload", files={"file": ("a.pdf", PDF)})
    assert (r.status_code, r.json()) == (503, {"detail": UNAVAILABLE})
    fake_bot_api.fail_chat(CHAT, status=400, description="Bad Request: chat not found")
    r = await client.post("/upload", files={"file": ("a.pdf", PDF)})
    assert r.status_code == 502 and "chat not found" in r.json()["detail"]
    fake_bot_api.failing_chats.clear()
    # last: the client then holds its calls for retry_after
    fake_bot_api.rate_limit(1, retry_after=120)
    r = await client.post("/upload", files={"file": ("a.pdf", PDF)})
    assert (r.status_code, r.json()) == (503, {"detail": UNAVAILABLE})
    assert await rows(MediaUpload) == []


async def test_uploads_need_their_credentials(anon_client):
    for path in ("/upload", "/cabinet/media/upload"):
        r = await anon_client.post(path, files={"file": ("a.png", PNG, "image/png")})
        assert r.status_code == 401


async def test_a_cabinet_user_that_no_longer_exists_cannot_upload(cabinet, fake_bot_api, rows):
    async with cabinet(999) as gone:
        r = await gone.post("/cabinet/media/upload", files={"file": ("a.png", PNG, "image/png")})
    assert (r.status_code, r.json()) == (401, {"detail": "User not found"})
    assert fake_bot_api.calls == [] and await rows(MediaUpload) == []
