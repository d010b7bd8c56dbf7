"""Outgoing mail over SMTP (aiosmtplib): a multipart message (plain text and HTML) built
from a template, sent with the configured server, TLS and login."""

from __future__ import annotations

import logging
from email.message import EmailMessage
from email.utils import formataddr, formatdate, make_msgid

import aiosmtplib

from subsvc_cabinet_email.settings import CabinetEmailSettings
from subsvc_cabinet_email.templates import render

log = logging.getLogger("subsvc.cabinet_email")


class MailError(Exception):
    """The SMTP server could not be reached or refused the message."""


class Mailer:
    """Composes and sends the plugin's e-mails."""

    def __init__(self, settings: CabinetEmailSettings) -> None:
        self.settings = settings

    @property
    def configured(self) -> bool:
        return self.settings.smtp_configured

    def compose(self, template: str, language: str | None, to: str, /, **values: str) -> EmailMessage:
        """The message of ``template`` for ``to``, in ``language`` when there are its texts."""
        rendered = render(template, language, email=to, **values)
        sender = self.settings.SMTP_FROM_EMAIL or ""
        message = EmailMessage()
        message["Subject"] = rendered.subject
        message["From"] = formataddr((self.settings.SMTP_FROM_NAME, sender))
        message["To"] = to
        message["Date"] = formatdate(localtime=False, usegmt=True)
        message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
        message["Auto-Submitted"] = "auto-generated"
        message.set_content(rendered.text)
        message.add_alternative(rendered.html, subtype="html")
        return message

    async def send(self, message: EmailMessage) -> None:
        """Deliver ``message`` to the SMTP server; :class:`MailError` when that fails."""
        settings = self.settings
        if not self.configured:
            raise MailError("SMTP is not configured")
        try:
            await aiosmtplib.send(
                message,
                hostname=settings.SMTP_HOST,
                port=settings.SMTP_PORT,
                username=settings.SMTP_USER,
                password=settings.SMTP_PASSWORD,
                use_tls=settings.SMTP_USE_SSL,
                start_tls=settings.SMTP_USE_TLS and not settings.SMTP_USE_SSL,
                timeout=settings.SMTP_TIMEOUT,
            )
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as exc:
            log.error("mail to %s not sent: %s", message["To"], exc)
            raise MailError(str(exc)) from exc
