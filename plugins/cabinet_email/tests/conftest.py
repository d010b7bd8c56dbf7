"""Run cabinet_email with the plugins it needs, against an SMTP sink (aiosmtpd) on loopback.

The sink is a real SMTP server in the tests' event loop: the plugin's aiosmtplib client talks
SMTP (EHLO, AUTH LOGIN/PLAIN, MAIL, RCPT, DATA) to it, and tests read the delivered messages
to follow the links and codes in them.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import functools
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from email.message import EmailMessage
from email.policy import default as default_policy
from typing import Any

import httpx2
import pytest
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from starlette.applications import Starlette
from subsvc_cabinet_email.mailer import Mailer
from subsvc_cabinet_email.passwords import Passwords
from subsvc_users.models import User

SMTP_PORTS = range(18120, 18130)  # this plugin's ports
SMTP_USER = "mailer"
SMTP_PASSWORD = "smtp-secret"
CABINET_URL = "https://cabinet.example.com"

# fast Argon2 for tests (production defaults are tested where they matter)
EMAIL_ENV = {
    "SMTP_HOST": "127.0.0.1",
    "SMTP_USER": SMTP_USER,
    "SMTP_PASSWORD": SMTP_PASSWORD,
    "SMTP_USE_TLS": "false",
    "SMTP_TIMEOUT": "5",
    "SMTP_FROM_EMAIL": "noreply@example.com",
    "SMTP_FROM_NAME": "Subscription Service",
    "CABINET_URL": CABINET_URL,
    "CABINET_PASSWORD_ARGON2_TIME_COST": "1",
    "CABINET_PASSWORD_ARGON2_MEMORY_KIB": "1024",
    "CABINET_PASSWORD_ARGON2_PARALLELISM": "1",
}


class Sink:
    """An SMTP server that keeps what it is sent (or refuses it, when told to)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[Envelope] = []
        self.refuse: str | None = None
        self.port = 0
        self._arrived = asyncio.Event()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.refuse:
            return self.refuse
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)
        message = email.message_from_bytes(raw, policy=default_policy)
        assert isinstance(message, EmailMessage)
        self.envelopes.append(envelope)
        self.messages.append(message)
        self._arrived.set()
        return "250 Message accepted for delivery"

    def authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
            SMTP_USER.encode(),
            SMTP_PASSWORD.encode(),
        )
        return AuthResult(success=ok, handled=False)

    async def wait(self, count: int = 1, seconds: float = 5.0) -> list[EmailMessage]:
        """Wait until ``count`` messages arrived (background sends)."""
        async with asyncio.timeout(seconds):
            while len(self.messages) < count:
                self._arrived.clear()
                await self._arrived.wait()
        return self.messages

    def last(self) -> EmailMessage:
        assert self.messages, "no message was delivered"
        return self.messages[-1]

    @staticmethod
    def text(message: EmailMessage) -> str:
        part = message.get_body(preferencelist=("plain",))
        assert part is not None
        return str(part.get_content())

    @staticmethod
    def html(message: EmailMessage) -> str:
        part = message.get_body(preferencelist=("html",))
        assert part is not None
        return str(part.get_content())

    def token(self, page: str, message: EmailMessage | None = None) -> str:
        """The token of the ``{CABINET_URL}/{page}?token=…`` link in the (last) message's text."""
        text = self.text(message or self.last())
        found = re.search(rf"{re.escape(CABINET_URL)}/{page}\?token=([0-9a-f]{{64}})", text)
        assert found, text
        return found.group(1)

    def code(self, message: EmailMessage | None = None) -> str:
        """The 6-digit code alone on a line of the (last) message's text."""
        text = self.text(message or self.last())
        found = re.search(r"^\s*(\d{6})\s*$", text, re.M)
        assert found, text
        return found.group(1)


def _smtp(sink: Sink) -> SMTP:
    return SMTP(sink, hostname="sink.test", authenticator=sink.authenticate, auth_require_tls=False)


async def _serve_sink(sink: Sink) -> asyncio.Server:
    loop = asyncio.get_running_loop()
    for port in SMTP_PORTS:
        try:
            return await loop.create_server(lambda: _smtp(sink), "127.0.0.1", port)
        except OSError:
            continue
    raise RuntimeError(f"no free port in {SMTP_PORTS}")


@pytest.fixture
async def smtp_sink() -> AsyncIterator[Sink]:
    sink = Sink()
    server = await _serve_sink(sink)
    sink.port = server.sockets[0].getsockname()[1]
    try:
        yield sink
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["cabinet_email"]


@pytest.fixture
def email_env(monkeypatch: pytest.MonkeyPatch, smtp_sink: Sink) -> Iterator[dict[str, str]]:
    """The plugin's settings (environment) for the app: SMTP pointed at the sink."""
    values = {**EMAIL_ENV, "SMTP_PORT": str(smtp_sink.port)}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    yield values


@pytest.fixture
def subsvc_settings(subsvc_settings: Any, email_env: dict[str, str]) -> Any:
    return subsvc_settings


Configure = Callable[..., None]


@pytest.fixture
def configure(app: Starlette) -> Configure:
    """``configure(SMTP_HOST=None)``: change the running app's plugin settings."""

    def change(**values: Any) -> None:
        current = app.state.settings_of["cabinet_email"]
        updated = current.model_copy(update=values)
        app.state.settings_of["cabinet_email"] = updated
        app.state.cabinet_email_mailer = Mailer(updated)
        app.state.cabinet_email_passwords = Passwords(updated)

    return change


MakeUser = Callable[..., Awaitable[User]]


@pytest.fixture
def make_user(insert_user: MakeUser) -> MakeUser:
    """``await make_user(email=..., email_verified=True)``: the users' kit's bare committed row."""
    return insert_user


@pytest.fixture
def bearer(app: Starlette) -> Callable[[User], dict[str, str]]:
    """Headers with an access token of ``user``."""

    def headers(user: User) -> dict[str, str]:
        assert user.id is not None
        return {"Authorization": f"Bearer {app.state.jwt.access_token(user.id)}"}

    return headers


@pytest.fixture
def hash_password(app: Starlette) -> Callable[[str], Awaitable[str]]:
    async def make(password: str) -> str:
        passwords: Passwords = app.state.cabinet_email_passwords
        return await passwords.hash(password)

    return make


@pytest.fixture
def fetch_user(reload: Callable[..., Awaitable[Any]]) -> Callable[[int], Awaitable[User | None]]:
    """``await fetch_user(user_id)``: the user's row as committed now (``None`` when gone)."""
    return functools.partial(reload, User)


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def me(anon_client: httpx2.AsyncClient) -> Callable[[str], Awaitable[dict[str, Any]]]:
    """``await me(access_token)``: ``GET /cabinet/auth/me`` as that token's user."""

    async def read(access_token: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {access_token}"}
        response = await anon_client.get("/cabinet/auth/me", headers=headers)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    return read
