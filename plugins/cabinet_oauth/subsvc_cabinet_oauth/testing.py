"""For tests and local trials: a loopback OAuth 2.0 provider speaking the four providers'
protocols: an authorization endpoint that redirects back with a code, a token endpoint that
checks the code, the client credentials, the redirect URI and the PKCE verifier, and each
provider's user-info endpoint.

Tests choose who is "logged in" at the provider for the next authorization and may make the
token or user-info endpoint fail.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

Endpoint = Callable[[Request], Awaitable[Response]]

CLIENTS = {
    "google": ("google-client", "google-secret"),
    "yandex": ("yandex-client", "yandex-secret"),
    "discord": ("discord-client", "discord-secret"),
    "vk": ("51234567", ""),  # VK ID: a public client proving itself with PKCE
}
PORTS = range(18130, 18140)


@dataclass
class Grant:
    provider: str
    client_id: str
    redirect_uri: str
    challenge: str | None
    account: dict[str, Any]


@dataclass
class FakeProvider:
    base_url: str = ""
    accounts: dict[str, dict[str, Any]] = field(default_factory=dict)
    codes: dict[str, Grant] = field(default_factory=dict)
    tokens: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    failing: set[str] = field(default_factory=set)
    token_requests: list[dict[str, str]] = field(default_factory=list)

    def reset(self) -> None:
        self.accounts.clear()
        self.codes.clear()
        self.tokens.clear()
        self.failing.clear()
        self.token_requests.clear()

    def env(self) -> dict[str, str]:
        """Settings that enable every provider against this fake."""
        values: dict[str, str] = {}
        paths = {
            "google": ("authorize", "token", "userinfo"),
            "yandex": ("authorize", "token", "info"),
            "discord": ("authorize", "token", "users/@me"),
            "vk": ("authorize", "oauth2/auth", "oauth2/user_info"),
        }
        for provider, (client_id, secret) in CLIENTS.items():
            prefix = f"OAUTH_{provider.upper()}_"
            authorize, token, userinfo = paths[provider]
            values |= {
                prefix + "ENABLED": "true",
                prefix + "CLIENT_ID": client_id,
                prefix + "CLIENT_SECRET": secret,
                prefix + "AUTHORIZE_URL": f"{self.base_url}/{provider}/{authorize}",
                prefix + "TOKEN_URL": f"{self.base_url}/{provider}/{token}",
                prefix + "USERINFO_URL": f"{self.base_url}/{provider}/{userinfo}",
            }
        return values

    async def authorize(self, authorize_url: str, account: dict[str, Any]) -> dict[str, str]:
        """Play the browser: open the authorization URL as ``account`` and return the query
        of the redirect back (``code``, ``state``, and ``device_id`` for VK ID)."""
        provider = urlsplit(authorize_url).path.split("/")[1]
        self.accounts[provider] = account
        async with httpx2.AsyncClient() as http:
            response = await http.get(authorize_url, follow_redirects=False)
        assert response.status_code == 302, response.text
        back = urlsplit(response.headers["location"])
        return {key: values[0] for key, values in parse_qs(back.query).items()}

    # --- the provider's endpoints ------------------------------------------------------------

    async def authorize_endpoint(self, request: Request) -> Response:
        provider = request.path_params["provider"]
        query = request.query_params
        client_id, _ = CLIENTS[provider]
        if query.get("client_id") != client_id or query.get("response_type") != "code":
            return JSONResponse({"error": "invalid_client"}, status_code=400)
        if not query.get("redirect_uri") or not query.get("state") or not query.get("scope"):
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        challenge = query.get("code_challenge")
        if challenge is not None and query.get("code_challenge_method") != "S256":
            return JSONResponse(
                {"error": "invalid_request", "error_description": "S256 only"}, status_code=400
            )
        if provider == "vk" and challenge is None:
            return JSONResponse(
                {"error": "invalid_request", "error_description": "PKCE required"}, status_code=400
            )
        code = secrets.token_urlsafe(24)
        self.codes[code] = Grant(
            provider, client_id, query["redirect_uri"], challenge, self.accounts[provider]
        )
        back = {"code": code, "state": query["state"]}
        if provider == "vk":
            back["device_id"] = "device-" + secrets.token_hex(8)
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(back)}", status_code=302)

    async def token_endpoint(self, request: Request) -> Response:
        provider = request.path_params["provider"]
        form = await _form(request)
        self.token_requests.append({"provider": provider, **form})
        if "token" in self.failing:
            return JSONResponse({"error": "server_error"}, status_code=503)
        error = self._check_grant(provider, form)
        if error is not None:
            # VK ID answers errors with 200 and an error member; the others with 400
            return JSONResponse({"error": error}, status_code=200 if provider == "vk" else 400)
        grant = self.codes.pop(form["code"])
        token = secrets.token_urlsafe(24)
        self.tokens[token] = (provider, grant.account)
        return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": 3600})

    def _check_grant(self, provider: str, form: dict[str, str]) -> str | None:
        client_id, secret = CLIENTS[provider]
        grant = self.codes.get(form.get("code", ""))
        if form.get("grant_type") != "authorization_code" or grant is None or grant.provider != provider:
            return "invalid_grant"
        if form.get("client_id") != client_id or (secret and form.get("client_secret") != secret):
            return "invalid_client"
        if form.get("redirect_uri") != grant.redirect_uri:
            return "invalid_grant"
        if grant.challenge is not None:
            verifier = form.get("code_verifier", "")
            digest = hashlib.sha256(verifier.encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant.challenge:
                return "invalid_grant"
        if provider == "vk" and (not form.get("device_id") or not form.get("state")):
            return "invalid_request"
        return None

    def _account(self, provider: str, token: str | None) -> dict[str, Any] | None:
        found = self.tokens.get(token or "")
        if found is None or found[0] != provider or "userinfo" in self.failing:
            return None
        return found[1]

    async def userinfo_endpoint(self, request: Request) -> Response:
        provider = request.path_params["provider"]
        if provider == "vk":
            form = await _form(request)
            if form.get("client_id") != CLIENTS["vk"][0]:
                return JSONResponse({"error": "invalid_client"})
            account = self._account(provider, str(form.get("access_token", "")))
            if account is None:
                return JSONResponse({"error": "invalid_token"})  # VK ID: 200 with an error
            return JSONResponse(account)
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        expected = "OAuth" if provider == "yandex" else "Bearer"
        if provider == "yandex" and request.query_params.get("format") != "json":
            return Response("xml is not spoken here", status_code=400)
        account = self._account(provider, token) if scheme == expected else None
        if account is None:
            return JSONResponse({"error": "invalid_token"}, status_code=401)
        return JSONResponse(account)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/{provider}/authorize", self.authorize_endpoint),
                Route("/{provider}/token", self.token_endpoint, methods=["POST"]),
                Route("/vk/oauth2/auth", self._vk(self.token_endpoint), methods=["POST"]),
                Route("/{provider}/userinfo", self.userinfo_endpoint),
                Route("/{provider}/info", self.userinfo_endpoint),
                Route("/{provider}/users/@me", self.userinfo_endpoint),
                Route("/vk/oauth2/user_info", self._vk(self.userinfo_endpoint), methods=["POST"]),
            ]
        )

    @staticmethod
    def _vk(endpoint: Endpoint) -> Endpoint:
        async def handle(request: Request) -> Response:
            request.path_params["provider"] = "vk"
            return await endpoint(request)

        return handle


async def _form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body (what OAuth token requests send)."""
    if request.headers.get("content-type", "").split(";")[0] != "application/x-www-form-urlencoded":
        return {}
    return dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))


def account(
    provider: str, subject: str, *, email: str | None = None, verified: bool = True, **names: str
) -> dict[str, Any]:
    """A user-info answer as ``provider`` shapes it."""
    first, last = names.get("first_name", "Ann"), names.get("last_name", "Lee")
    if provider == "google":
        return {
            "sub": subject,
            "email": email,
            "email_verified": verified,
            "given_name": first,
            "family_name": last,
        }
    if provider == "yandex":
        return {
            "id": subject,
            "login": names.get("login", "ann.lee"),
            "default_email": email,
            "first_name": first,
            "last_name": last,
        }
    if provider == "discord":
        return {
            "id": subject,
            "username": names.get("login", "annlee"),
            "global_name": first,
            "email": email,
            "verified": verified,
        }
    return {"user": {"user_id": subject, "first_name": first, "last_name": last, "email": email or ""}}


async def start_and_authorize(
    http: httpx2.AsyncClient, fake: FakeProvider, path: str, profile: dict[str, Any], **options: Any
) -> tuple[dict[str, Any], dict[str, str]]:
    """Ask our API for an authorization URL (``path``), play the browser at the fake as
    ``profile``; the API's answer and the query the provider redirected back with."""
    response = await http.get(path, **options)
    assert response.status_code == 200, response.text
    started = response.json()
    back = await fake.authorize(started["authorize_url"], profile)
    assert back["state"] == started["state"]
    return started, back


def callback_body(back: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"code": back["code"], "state": back["state"]}
    if "device_id" in back:
        body["device_id"] = back["device_id"]
    return body


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


@asynccontextmanager
async def serve(fake: FakeProvider) -> AsyncIterator[FakeProvider]:
    """Serve the fake with uvicorn on the first free port of 18130-18139."""
    sock = _bind()
    port = sock.getsockname()[1]
    fake.base_url = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(uvicorn.Config(fake.app(), log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield fake
    finally:
        server.should_exit = True
        await task
        sock.close()


def _bind() -> socket.socket:
    for port in PORTS:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            continue
        return sock
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")
