"""Cabinet:Public: the unsubscribe page of marketing e-mail and its one-click POST (RFC 8058)."""

from __future__ import annotations

import html
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from subsvc_users.api import User

from subsvc.api import Query, Router
from subsvc_cabinet_email import unsubscribe

router = Router(area="cabinet", tag="Cabinet:Public", prefix="/cabinet/public")

Token = Annotated[str, Query(description="The signed unsubscribe token of the e-mail's link")]
FORM_FIELD = "confirm"

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="robots" content="noindex">
<title>{title}</title></head>
<body><h1>{title}</h1><p>{text}</p>{form}</body></html>"""


def _page(title: str, text: str, form: str = "") -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=html.escape(title), text=html.escape(text), form=form))


async def _user(request: Request, session: AsyncSession, token: str) -> User | None:
    user_id = unsubscribe.read_token(request.app, token) if token else None
    return await session.get(User, user_id) if user_id is not None else None


def _form(token: str) -> str:
    """A form that posts itself (scanners that only GET the link change nothing)."""
    action = html.escape(f"{unsubscribe.PATH}?token={token}", quote=True)
    return (
        f'<form id="unsubscribe" method="post" action="{action}">'
        f'<input type="hidden" name="{FORM_FIELD}" value="1">'
        '<button type="submit">Unsubscribe</button></form>'
        '<script>document.getElementById("unsubscribe").submit()</script>'
    )


@router.get("/unsubscribe", public=True, response_model=None)
async def unsubscribe_page(request: Request, session: AsyncSession, token: Token = "") -> Response:
    """The page of the e-mail's unsubscribe link: the state, and a form that submits itself.
    Changes nothing (mail scanners open such links)."""
    user = await _user(request, session, token)
    if user is None or user.id is None:
        return _page("Link expired", "This unsubscribe link is invalid or has expired.")
    if await unsubscribe.is_unsubscribed(session, user.id):
        return _page("Unsubscribed", "You no longer receive marketing e-mail from us.")
    return _page("Unsubscribe", "Unsubscribing you from marketing e-mail…", _form(token))


@router.post("/unsubscribe", public=True, response_model=None)
async def unsubscribe_one_click(request: Request, session: AsyncSession, token: Token = "") -> Response:
    """Unsubscribe from marketing e-mail: the mail client's one-click POST
    (``List-Unsubscribe=One-Click``, answered with an empty 200) or the page's form (answered
    with a page). An invalid or expired link changes nothing and answers 200 as well."""
    user = await _user(request, session, token)
    if user is not None and user.id is not None:
        await unsubscribe.record(session, user.id, user.email or "")
    body = (await request.body()).decode("latin-1")
    if "List-Unsubscribe=One-Click" in body:
        return Response(status_code=200)
    if user is None:
        return _page("Link expired", "This unsubscribe link is invalid or has expired.")
    return _page("Unsubscribed", "You no longer receive marketing e-mail from us.")
