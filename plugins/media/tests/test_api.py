"""`subsvc_media.api`: download tokens and URLs, and which file ids an uploader may not attach."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlmodel import select
from starlette.requests import Request
from subsvc_media.api import download_token, download_url, unattachable
from subsvc_media.tokens import verify

from subsvc.db.types import utcnow
from subsvc.testing import JWT_SECRET
from subsvc.tokens.models import ApiToken

from .conftest import PDF, PNG

FILE_ID = "AgACFakeFileId_0123456789"


def test_a_token_is_expiry_dot_hmac_of_the_file_id(app):
    import hashlib
    import hmac

    now = utcnow()
    token = download_token(app, FILE_ID, now=now)
    exp, _, signature = token.partition(".")
    assert int(exp) == int((now + timedelta(hours=24)).timestamp())
    expected = hmac.new(JWT_SECRET.encode(), f"{FILE_ID}.{exp}".encode(), hashlib.sha256).hexdigest()
    assert signature == expected


def test_a_token_verifies_for_its_file_for_24_hours(app):
    now = utcnow()
    token = download_token(app, FILE_ID, now=now)
    assert verify(app, FILE_ID, token, now=now + timedelta(hours=23, minutes=59))
    assert not verify(app, FILE_ID, token, now=now + timedelta(hours=24))
    assert not verify(app, FILE_ID + "x", token, now=now)


def test_forged_and_malformed_tokens_do_not_verify(app):
    token = download_token(app, FILE_ID)
    exp, _, signature = token.partition(".")
    later = str(int(exp) + 3600)
    for forged in (
        f"{later}.{signature}",
        f"{exp}.{signature[:-1]}0" if signature[-1] != "0" else f"{exp}.{signature[:-1]}1",
        f"{exp}.",
        "",
        ".",
        signature,
        f"-1.{signature}",
        f"{exp}.{signature}é",
        f"١٢٣.{signature}",
    ):
        assert not verify(app, FILE_ID, forged), forged


def test_download_url_is_the_absolute_cabinet_route_with_a_token(app):
    scope = {
        "type": "http",
        "app": app,
        "scheme": "https",
        "server": ("files.example", 443),
        "path": "/anything",
        "root_path": "",
        "headers": [(b"host", b"files.example")],
        "query_string": b"",
    }
    url = download_url(Request(scope), FILE_ID)
    found = re.fullmatch(r"https://files\.example/cabinet/media/(?P<id>[^?]+)\?token=(?P<token>.+)", url)
    assert found and found["id"] == FILE_ID
    assert verify(app, FILE_ID, found["token"])


async def test_unattachable_names_the_files_this_uploader_did_not_upload(client, member, admin, db):
    mine = (await member.post("/cabinet/media/upload", files={"file": ("a.png", PNG, "image/png")})).json()
    theirs = (await admin.post("/cabinet/media/upload", files={"file": ("b.png", PNG, "image/png")})).json()
    api = (await client.post("/upload", files={"file": ("c.pdf", PDF, "application/pdf")})).json()
    ids = [mine["file_id"], theirs["file_id"], "unknown-file-id-000", api["file_id"], mine["file_id"]]
    async with db.session() as session:
        token_id = (await session.exec(select(ApiToken.id))).one()
        assert await unattachable(session, ids, user_id=2) == ids[1:4]
        assert await unattachable(session, ids, user_id=1) == [ids[0], ids[2], ids[3]]
        assert await unattachable(session, ids, token_id=token_id) == ids[:3]
        assert await unattachable(session, ids) == ids[:4]
        assert await unattachable(session, [], user_id=2) == []


async def test_an_account_merge_gives_the_removed_users_uploads_to_the_kept_one(member, db, rows):
    from subsvc_media.merging import cabinet_account_merging
    from subsvc_media.models import MediaUpload

    mine = (await member.post("/cabinet/media/upload", files={"file": ("a.png", PNG, "image/png")})).json()
    async with db.session() as session:
        await cabinet_account_merging(session, 1, 2)
        await session.commit()
        assert await unattachable(session, [mine["file_id"]], user_id=1) == []
    [row] = await rows(MediaUpload)
    assert row.uploader_user_id == 1
