"""Benchmark scenarios, grouped into named sets.

To add a set, append a ``ScenarioSet`` to ``SCENARIO_SETS``. A set may carry
a ``seed`` callable: it runs once, before the service starts, with the
service's environment (DATABASE_URL, WEB_API_DEFAULT_TOKEN, ...) and a
scratch directory; use it to create rows the scenarios need.
"""

import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jwt
from seed import FIRST_MESSENGER_ID, USERS, seed_users, username

API_KEY_HEADER = "X-API-Key"


@dataclass(frozen=True)
class Scenario:
    """One HTTP request that wrk repeats for the duration of a run."""

    name: str
    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None
    auth: bool = False  # add "X-API-Key: <token>" to the headers
    expect_status: int = 200  # checked once before measuring
    random_id: tuple[int, int] | None = None  # "{id}" in the path: a random id in this range per request
    bodies: tuple[str, ...] = ()  # when given, each request sends the next of these bodies in turn

    @property
    def first_path(self) -> str:
        """The path with ``{id}`` (if any) replaced by the lowest id (for the check request)."""
        return self.path.replace("{id}", str(self.random_id[0])) if self.random_id else self.path


@dataclass(frozen=True)
class SeedContext:
    """What a seed step gets: the service env and a scratch directory."""

    env: Mapping[str, str]
    workdir: Path
    server_cmd: tuple[str, ...]


Seed = Callable[[SeedContext], None]


@dataclass(frozen=True)
class ScenarioSet:
    """A named list of scenarios plus an optional pre-start seed step."""

    name: str
    scenarios: tuple[Scenario, ...]
    seed: Seed | None = None
    description: str = ""
    env: Mapping[str, str] = field(default_factory=dict)  # extra environment for the service


# PostgreSQL sets: a pool as large as wrk's 32 connections, so no request opens a connection
# of its own (above the pool size every checkout would open and close one).
POOL_FOR_THE_LOAD = {"DATABASE_POOL_SIZE": "32", "DATABASE_MAX_OVERFLOW": "0"}

# The cabinet set's credentials: a bot token that signs mini-app init data, and the secret
# that signs cabinet JWTs (both given to the service through ScenarioSet.env).
BOT_TOKEN = "4242:bench-bot-token"
CABINET_JWT_SECRET = "bench-cabinet-jwt-secret-" + "0" * 32


def messenger_init_data(messenger_id: int) -> str:
    """Mini-app init data for a messenger user, signed as the messenger signs it (HMAC-SHA256
    with the key HMAC("WebAppData", bot token) over the sorted ``key=value`` lines)."""
    fields = {
        "auth_date": str(int(time.time())),
        "query_id": "bench",
        "user": json.dumps({"id": messenger_id, "first_name": "Bench", "username": "bench_user"}),
    }
    secret = hmac.new(b"WebAppData", BOT_TOKEN.encode(), hashlib.sha256).digest()
    check = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def cabinet_access_token(user_id: int, hours: int = 4, **claims: Any) -> str:
    """An access JWT for a cabinet user, valid for ``hours``, with more ``claims``."""
    now = int(time.time())
    payload = {**claims, "sub": str(user_id), "type": "access", "iat": now, "exp": now + hours * 3600}
    return jwt.encode(payload, CABINET_JWT_SECRET, algorithm="HS256")


LOGIN_BODIES = tuple(  # 1,001 active seeded users (the seed blocks every 20th: they would get 403)
    json.dumps({"init_data": messenger_init_data(FIRST_MESSENGER_ID + n)})
    for n in range(1, 1054)
    if n % 20 != 0
)

SCENARIO_SETS: dict[str, ScenarioSet] = {
    s.name: s
    for s in (
        ScenarioSet(
            name="users",
            description="PostgreSQL with 100,000 users (BENCH_USERS): list, search, balance, stats",
            seed=seed_users,
            env=POOL_FOR_THE_LOAD,
            scenarios=(
                Scenario("GET /health", "GET", "/health"),
                Scenario("GET /users?limit=50", "GET", "/users?limit=50", auth=True),
                Scenario(
                    "GET /users?search=<6 letters>", "GET", f"/users?search={username(4242)[3:9]}", auth=True
                ),
                Scenario(
                    "POST /users/{id}/balance",
                    "POST",
                    "/users/{id}/balance",
                    body='{"amount_kopeks": 7}',
                    auth=True,
                    random_id=(FIRST_MESSENGER_ID + 1, FIRST_MESSENGER_ID + USERS),
                ),
                Scenario("GET /stats/overview", "GET", "/stats/overview", auth=True),
            ),
        ),
        ScenarioSet(
            name="stats",
            description="PostgreSQL with BENCH_USERS users (1,000,000 for issue 17): the overview alone",
            seed=seed_users,
            env=POOL_FOR_THE_LOAD,
            scenarios=(Scenario("GET /stats/overview", "GET", "/stats/overview", auth=True),),
        ),
        ScenarioSet(
            name="cabinet",
            description="PostgreSQL with 100,000 users: messenger login and authenticated cabinet reads",
            seed=seed_users,
            env={
                **POOL_FOR_THE_LOAD,
                "BOT_TOKEN": BOT_TOKEN,
                "CABINET_JWT_SECRET": CABINET_JWT_SECRET,
                # every request comes from 127.0.0.1: keep the limiter counting, but never refusing
                "RATE_LIMITS": "messenger_login=1000000000/minute",
            },
            scenarios=(
                Scenario("GET /health", "GET", "/health"),
                Scenario(
                    "POST /cabinet/auth/messenger",
                    "POST",
                    "/cabinet/auth/messenger",
                    # 1,000 users logging in, each with their own signed init data
                    body=LOGIN_BODIES[0],
                    bodies=LOGIN_BODIES,
                ),
                Scenario(
                    "GET /cabinet/auth/me",
                    "GET",
                    "/cabinet/auth/me",
                    headers={"Authorization": f"Bearer {cabinet_access_token(42)}"},
                ),
                Scenario(
                    "GET /cabinet/subscription",
                    "GET",
                    "/cabinet/subscription",
                    headers={"Authorization": f"Bearer {cabinet_access_token(42)}"},
                ),
            ),
        ),
        ScenarioSet(
            name="core",
            description="health check and two authenticated list endpoints",
            scenarios=(
                Scenario("GET /health", "GET", "/health"),
                Scenario("GET /plugins", "GET", "/plugins", auth=True),
                Scenario("GET /tokens", "GET", "/tokens", auth=True),
            ),
        ),
    )
}
