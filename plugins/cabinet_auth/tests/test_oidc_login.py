"""POST /cabinet/auth/messenger/oidc: ID tokens verified against a loopback OIDC provider's JWKS."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from jwt.algorithms import ECAlgorithm, RSAAlgorithm
from jwt.utils import base64url_encode
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from subsvc_cabinet_auth.models import UsedCredential
from subsvc_users.models import User

from subsvc.testing_server import LoopbackServer

PATH = "/cabinet/auth/messenger/oidc"
CLIENT_ID = "cabinet-client-42"


class FakeProvider:
    """An OIDC provider's JWKS endpoint (the part a relying party talks to) and its keys."""

    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.published: list[dict[str, Any]] = []
        self.hits = 0
        self.failing = False
        self.issuer = ""  # the loopback server's address, once it listens
        self.publish("rsa-1", "ec-1")

    def publish(self, *kids: str) -> None:
        keys = []
        for kid in kids:
            if kid.startswith("rsa"):
                key = RSAAlgorithm.to_jwk(self.rsa.public_key(), as_dict=True)
                key.update(kid=kid, alg="RS256", use="sig")
            else:
                key = ECAlgorithm.to_jwk(self.ec.public_key(), as_dict=True)
                key.update(kid=kid, alg="ES256", use="sig")
            keys.append(key)
        self.published = keys

    async def jwks(self, request: Request) -> JSONResponse:
        self.hits += 1
        if self.failing:
            return JSONResponse({"error": "down"}, status_code=503)
        return JSONResponse({"keys": self.published})

    def token(self, kid: str = "rsa-1", key: Any = None, alg: str = "RS256", **claims: Any) -> str:
        now = int(time.time())
        payload = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "sub": "777000111",
            "id": 777000111,
            "iat": now,
            "exp": now + 300,
            "name": "Olga",
            "preferred_username": "olga",
            "locale": "de-DE",
            **claims,
        }
        payload = {k: v for k, v in payload.items() if v is not None}
        signing = key if key is not None else (self.rsa if alg.startswith("RS") else self.ec)
        return jwt.encode(payload, signing, algorithm=alg, headers={"kid": kid})


@pytest.fixture(scope="module")
async def provider() -> AsyncIterator[FakeProvider]:
    fake = FakeProvider()
    app = Starlette(routes=[Route("/.well-known/jwks.json", fake.jwks)])
    async with LoopbackServer(app) as server:
        fake.issuer = server.url
        yield fake


@pytest.fixture(autouse=True)
def oidc_settings(monkeypatch: pytest.MonkeyPatch, provider: FakeProvider) -> None:
    monkeypatch.setenv("MESSENGER_OIDC_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("MESSENGER_OIDC_ISSUER", provider.issuer)
    provider.publish("rsa-1", "ec-1")
    provider.failing = False


async def test_a_valid_id_token_logs_in_and_creates_the_user(anon_client, provider, rows):
    response = await anon_client.post(PATH, json={"id_token": provider.token()})

    assert response.status_code == 200, response.text
    user = response.json()["user"]
    assert (user["messenger_id"], user["username"], user["first_name"], user["language"]) == (
        777000111,
        "olga",
        "Olga",
        "de",
    )
    (used,) = await rows(UsedCredential)
    assert used.kind == "oidc"


async def test_an_ec_signed_token_is_accepted_too(anon_client, provider):
    response = await anon_client.post(PATH, json={"id_token": provider.token(kid="ec-1", alg="ES256")})

    assert response.status_code == 200, response.text


async def test_a_replayed_token_is_refused(anon_client, provider):
    token = provider.token()
    first = await anon_client.post(PATH, json={"id_token": token})
    replay = await anon_client.post(PATH, json={"id_token": token})

    assert first.status_code == 200
    assert replay.status_code == 401
    assert replay.json() == {"detail": "Invalid or expired messenger OIDC token"}


def _forged(provider: FakeProvider, case: str) -> str:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if case == "wrong key":
        return provider.token(key=other)
    if case == "alg none":
        return jwt.encode(
            {"iss": provider.issuer, "aud": CLIENT_ID, "sub": "1", "exp": 2**31}, None, algorithm="none"
        )
    if case == "hmac with the public key":  # algorithm confusion: the public key as HMAC secret
        pem = provider.rsa.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        claims = {"iss": provider.issuer, "aud": CLIENT_ID, "sub": "1", "iat": 1, "exp": 2**31}
        signing_input = b".".join(
            base64url_encode(json.dumps(part).encode())
            for part in ({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, claims)
        )
        signature = base64url_encode(hmac.new(pem, signing_input, hashlib.sha256).digest())
        return (signing_input + b"." + signature).decode()
    if case == "ec key claimed as rsa":
        return provider.token(kid="ec-1", alg="RS256")
    if case == "expired":
        return provider.token(iat=int(time.time()) - 4000, exp=int(time.time()) - 3600)
    if case == "other audience":
        return provider.token(aud="someone-else")
    if case == "other issuer":
        return provider.token(iss="https://evil.example")
    if case == "no exp":
        return provider.token(exp=None)
    if case == "no sub":
        return provider.token(sub=None)
    if case == "unknown kid":
        return provider.token(kid="rsa-404")
    if case == "tampered payload":
        header, payload, signature = provider.token().split(".")
        return ".".join(
            [header, payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1], signature]
        )
    return "not-a-jwt"


@pytest.mark.parametrize(
    "case",
    [
        "wrong key",
        "alg none",
        "hmac with the public key",
        "ec key claimed as rsa",
        "expired",
        "other audience",
        "other issuer",
        "no exp",
        "no sub",
        "unknown kid",
        "tampered payload",
        "garbage",
    ],
)
async def test_forged_or_expired_tokens_are_refused(anon_client, provider, rows, case):
    response = await anon_client.post(PATH, json={"id_token": _forged(provider, case)})

    assert response.status_code == 401, response.text
    assert response.json() == {"detail": "Invalid or expired messenger OIDC token"}
    assert await rows(User) == []


async def test_keys_are_cached_and_a_rotated_key_is_fetched(anon_client, provider, app):
    await anon_client.post(PATH, json={"id_token": provider.token()})
    hits = provider.hits
    second = await anon_client.post(PATH, json={"id_token": provider.token(sub="2", id=2)})
    assert second.status_code == 200
    assert provider.hits == hits  # served from the cache

    provider.publish("rsa-2")
    too_soon = await anon_client.post(PATH, json={"id_token": provider.token(kid="rsa-2", sub="3", id=3)})
    assert too_soon.status_code == 401  # unknown kids refetch at most every 30 s
    assert provider.hits == hits
    app.state.messenger_jwks.fetched_at -= 31  # half a minute later
    rotated = await anon_client.post(PATH, json={"id_token": provider.token(kid="rsa-2", sub="4", id=4)})

    assert rotated.status_code == 200, rotated.text
    assert provider.hits == hits + 1


async def test_provider_down_answers_503(anon_client, provider):
    provider.failing = True

    response = await anon_client.post(PATH, json={"id_token": provider.token()})

    assert response.status_code == 503
    assert response.json() == {"detail": "The messenger's identity provider is unavailable"}


async def test_without_configuration_oidc_is_off(anon_client, provider, monkeypatch, app):
    app.state.messenger_jwks.client_id = None

    response = await anon_client.post(PATH, json={"id_token": provider.token()})

    assert response.status_code == 400
    assert response.json() == {"detail": "Messenger OIDC is not configured"}


async def test_a_blocked_user_is_refused(anon_client, provider, insert_user):
    await insert_user(messenger_id=777000111, status="blocked")

    response = await anon_client.post(PATH, json={"id_token": provider.token()})

    assert response.status_code == 403
