"""Marketing e-mail to a user: only to a verified address of a user who did not unsubscribe,
always with the unsubscribe link and the one-click headers (see :mod:`.unsubscribe`)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_users.api import User

from subsvc_cabinet_email import delivery, unsubscribe
from subsvc_cabinet_email.mailer import MailError


async def may_receive(session: AsyncSession, user: User) -> bool:
    """Does marketing mail reach the user (an active account, a verified address, not unsubscribed)?"""
    if user.id is None or user.status != "active" or not user.email or not user.email_verified:
        return False
    return not await unsubscribe.is_unsubscribed(session, user.id)


async def send_marketing(
    app: Starlette, session: AsyncSession, user: User, *, subject: str, text: str, html: str
) -> bool:
    """Send a marketing message to ``user``; ``False`` (nothing sent) when the user may not
    receive it, when ``PUBLIC_API_URL`` (the link) is unset, or when the SMTP server fails."""
    if not await may_receive(session, user):
        return False
    assert user.id is not None and user.email is not None
    link = unsubscribe.unsubscribe_url(app, user.id)
    mailer = delivery.mailer(app)
    if link is None or not mailer.configured:
        return False
    try:
        await mailer.send(mailer.compose_marketing(user.email, subject, text, html, link))
    except MailError:
        return False
    return True
