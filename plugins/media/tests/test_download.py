"""Downloads streamed from the fake Bot API: the Web API's (API key) and the cabinet's (a
signed token, no JWT): the bytes, the safe headers, and every refusal."""

from __future__ import annotations

from datetime import timedelta

from subsvc_media.api import download_token
from subsvc_media.service import NOT_FOUND, UNAVAILABLE

from subsvc.db.types import utcnow
from subsvc.testing_messenger import StoredFile

from .conftest import GIF, PDF, PNG

SAFE = {
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; img-src 'self' data:; sandbox",
}


def _path_of(url: str) -> str:
    return url.removeprefix("http://testserver")


async def test_the_cabinet_serves_an_uploaded_photo_inline_with_its_token(member, anon_client):
    up = (await member.post("/cabinet/media/upload", files={"file": ("me.png", PNG, "image/png")})).json()
    r = await anon_client.get(_path_of(up["media_url"]))  # no JWT: the token is the credential
    assert r.status_code == 200
    assert r.content == PNG
    assert r.headers["content-type"] == "image/png"
    assert r.headers["content-disposition"].startswith('inline; filename="file_')
    assert r.headers["content-length"] == str(len(PNG))
    assert SAFE.items() <= r.headers.items()


async def test_anything_but_an_image_is_an_octet_stream_attachment(member, client, anon_client):
    data = b"%PDF-1.4\n" + bytes(range(256)) * 8192  # 2 MiB, streamed in chunks
    up = (
        await member.post(
            "/cabinet/media/upload", data={"media_type": "document"}, files={"file": ("r.pdf", data)}
        )
    ).json()
    for http, path in ((anon_client, _path_of(up["media_url"])), (client, f"/media/{up['file_id']}")):
        r = await http.get(path)
        assert r.status_code == 200 and r.content == data
        assert r.headers["content-type"] == "application/octet-stream"
        assert r.headers["content-disposition"].startswith("attachment; filename=")
        assert r.headers["content-disposition"].endswith('.pdf"')
        assert SAFE.items() <= r.headers.items()


async def test_the_web_api_downloads_with_its_key(client, anon_client):
    up = (
        await client.post(
            "/upload", data={"media_type": "photo"}, files={"file": ("a.gif", GIF, "image/gif")}
        )
    ).json()
    assert _path_of(up["media_url"]) == f"/media/{up['file_id']}"
    r = await client.get(f"/media/{up['file_id']}")
    assert (r.status_code, r.content, r.headers["content-type"]) == (200, GIF, "image/gif")
    assert (await anon_client.get(f"/media/{up['file_id']}")).status_code == 401


async def test_a_file_the_messenger_does_not_know_is_404(client, anon_client, app):
    r = await client.get("/media/AgACunknownFileId0123456789")
    assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND})
    unknown = "BQACunknownFileId0123456789"
    r = await anon_client.get(f"/cabinet/media/{unknown}", params={"token": download_token(app, unknown)})
    assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND})


async def test_a_file_the_messenger_cannot_serve_any_more_is_404(client, fake_bot_api):
    file_id = fake_bot_api.add_file(PDF, "a.pdf")
    assert (await client.get(f"/media/{file_id}")).status_code == 200
    fake_bot_api.files[file_id] = StoredFile(file_id, "AQADgone", "", PDF)  # getFile: no file_path
    r = await client.get(f"/media/{file_id}")
    assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND})


async def test_expired_forged_and_missing_tokens_are_404(member, anon_client, app, fake_bot_api):
    up = (await member.post("/cabinet/media/upload", files={"file": ("me.png", PNG, "image/png")})).json()
    file_id = up["file_id"]
    good = download_token(app, file_id)
    exp, _, signature = good.partition(".")
    expired = download_token(app, file_id, now=utcnow() - timedelta(hours=24, seconds=1))
    other = download_token(app, "AgACsomeOtherFileId0123456789")
    for token in (
        expired,
        f"{int(exp) + 60}.{signature}",
        f"{exp}.{'0' * len(signature)}",
        other,
        "",
        "garbage",
        "9" * 200,
    ):
        r = await anon_client.get(f"/cabinet/media/{file_id}", params={"token": token})
        assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND}), token
    r = await anon_client.get(f"/cabinet/media/{file_id}")
    assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND})
    calls = len(fake_bot_api.calls)
    for bad_id in ("short", "has.dot.in.it.0123456789", "a" * 257):
        r = await anon_client.get(f"/cabinet/media/{bad_id}", params={"token": download_token(app, bad_id)})
        assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND})
    assert len(fake_bot_api.calls) == calls  # refused before asking the messenger
    assert (await anon_client.get(f"/cabinet/media/{file_id}", params={"token": good})).status_code == 200


async def test_a_failing_messenger_is_503_not_500(client, anon_client, app, fake_bot_api):
    file_id = fake_bot_api.add_file(PDF, "a.pdf")
    fake_bot_api.fail("getFile", 500, "Internal Server Error", times=2)
    r = await client.get(f"/media/{file_id}")
    assert (r.status_code, r.json()) == (503, {"detail": UNAVAILABLE})
    r = await anon_client.get(f"/cabinet/media/{file_id}", params={"token": download_token(app, file_id)})
    assert (r.status_code, r.json()) == (503, {"detail": UNAVAILABLE})


async def test_a_download_the_messenger_refuses_is_404_or_503(client, fake_bot_api):
    file_id = fake_bot_api.add_file(PDF, "a.pdf")
    fake_bot_api.fail("file", 404, "Not Found")
    r = await client.get(f"/media/{file_id}")
    assert (r.status_code, r.json()) == (404, {"detail": NOT_FOUND})
    fake_bot_api.fail("file", 502, "Bad Gateway")
    r = await client.get(f"/media/{file_id}")
    assert (r.status_code, r.json()) == (503, {"detail": UNAVAILABLE})
    fake_bot_api.fail("file", 403, "Forbidden")
    r = await client.get(f"/media/{file_id}")
    assert (r.status_code, r.json()) == (502, {"detail": "The messenger refused the download: HTTP 403"})
    assert (await client.get(f"/media/{file_id}")).content == PDF
