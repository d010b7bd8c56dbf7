"""Marketing e-mail and its unsubscribe (release 4.1.0 "Cabinet:Public", RFC 8058): the signed,
expiring link and one-click headers in every marketing message, `GET` showing the state,
`POST` recording it, and later marketing mail skipping the user."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from subsvc_cabinet_email.api import is_unsubscribed, send_marketing
from subsvc_cabinet_email.models import EmailUnsubscribe
from subsvc_cabinet_email.unsubscribe import make_token

PATH = "/cabinet/public/unsubscribe"
API = "https://api.example.com"


async def _send(app, db, user) -> bool:
    async with db.session() as session:
        return await send_marketing(
            app, session, user, subject="Spring sale", text="Half price", html="<p>Half price</p>"
        )


async def test_marketing_mail_carries_the_link_and_the_one_click_headers(
    app, db, anon_client, make_user, configure, smtp_sink, rows
):
    configure(PUBLIC_API_URL=API)
    user = await make_user(email="fan@example.com", email_verified=True)
    assert await _send(app, db, user)
    message = smtp_sink.last()
    assert message["Subject"] == "Spring sale" and message["To"] == "fan@example.com"
    link = re.fullmatch(r"<(.+)>", message["List-Unsubscribe"]).group(1)
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert link.startswith(f"{API}{PATH}?token=")
    assert link in smtp_sink.text(message) and "Unsubscribe" in smtp_sink.html(message)
    target = urlsplit(link)
    local = f"{target.path}?{target.query}"

    # the page (mail scanners open it too) changes nothing: it shows a form that submits itself
    page = await anon_client.get(local)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<form id="unsubscribe" method="post"' in page.text
    assert await rows(EmailUnsubscribe) == []

    # the mail client's one-click POST: an empty 200, recorded
    one_click = await anon_client.post(
        local,
        content="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert (one_click.status_code, one_click.content) == (200, b"")
    (row,) = await rows(EmailUnsubscribe)
    assert (row.user_id, row.email) == (user.id, "fan@example.com")
    async with db.session() as session:
        assert await is_unsubscribed(session, user.id)

    shown = await anon_client.get(local)
    assert "You no longer receive marketing e-mail" in shown.text
    form = await anon_client.post(local, content="confirm=1")  # the page's form: a page back
    assert form.status_code == 200 and "Unsubscribed" in form.text
    assert len(await rows(EmailUnsubscribe)) == 1

    # later marketing mail skips the user; transactional mail is another matter
    sent = len(smtp_sink.messages)
    assert not await _send(app, db, user)
    assert len(smtp_sink.messages) == sent


async def test_bad_and_expired_links_change_nothing(app, anon_client, make_user, configure, rows):
    user = await make_user(email="fan@example.com", email_verified=True)
    expired = make_token(app, user.id, now=time.time() - 61 * 86400)
    forged = make_token(app, user.id).replace(f"{user.id}.", f"{user.id + 1}.", 1)
    for token in ("", "garbage", expired, forged):
        page = await anon_client.get(PATH, params={"token": token})
        assert page.status_code == 200 and "invalid or has expired" in page.text
        posted = await anon_client.post(PATH, params={"token": token}, content="List-Unsubscribe=One-Click")
        assert (posted.status_code, posted.content) == (200, b"")
    assert await rows(EmailUnsubscribe) == []


async def test_no_marketing_mail_without_a_verified_address_or_the_public_address(
    app, db, make_user, configure, smtp_sink
):
    verified = await make_user(email="a@example.com", email_verified=True)
    assert not await _send(app, db, verified)  # PUBLIC_API_URL unset: no link, no mail
    configure(PUBLIC_API_URL=API)
    assert not await _send(app, db, await make_user(email="b@example.com", email_verified=False))
    assert not await _send(app, db, await make_user(messenger_id=5))
    assert smtp_sink.messages == []
