"""Outgoing mail over SMTP (aiosmtplib): a multipart message (plain text and HTML) built
from a template, sent with the configured server, TLS and login."""

from __future__ import annotations

import html
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
        return self._message(to, rendered.subject, rendered.text, rendered.html)

    def compose_marketing(
        self, to: str, subject: str, text: str, body_html: str, unsubscribe: str
    ) -> EmailMessage:
        """A marketing message: the unsubscribe link at its end and the RFC 8058 one-click
        headers (``List-Unsubscribe``, ``List-Unsubscribe-Post``)."""
        link = html.escape(unsubscribe, quote=True)
        message = self._message(
            to,
            subject,
            f"{text}\n\n--\nUnsubscribe: {unsubscribe}\n",
            f'{body_html}<hr><p><a href="{link}">Unsubscribe</a></p>',
        )
        del message["Auto-Submitted"]
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        return message

    def _message(self, to: str, subject: str, text: str, body_html: str) -> EmailMessage:
        sender = self.settings.SMTP_FROM_EMAIL or ""
        message = EmailMessage()
        message["Subject"] = " ".join(subject.split())
        message["From"] = formataddr((self.settings.SMTP_FROM_NAME, sender))
        message["To"] = to
        message["Date"] = formatdate(localtime=False, usegmt=True)
        message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
        message["Auto-Submitted"] = "auto-generated"
        message.set_content(text)
        message.add_alternative(body_html, subtype="html")
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
