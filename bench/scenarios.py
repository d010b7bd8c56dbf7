"""Benchmark scenarios, grouped into named sets.

To add a set, append a ``ScenarioSet`` to ``SCENARIO_SETS``. A set may carry
a ``seed`` callable: it runs once, before the service starts, with the
service's environment (DATABASE_URL, WEB_API_DEFAULT_TOKEN, ...) and a
scratch directory; use it to create rows the scenarios need.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

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


SCENARIO_SETS: dict[str, ScenarioSet] = {
    s.name: s
    for s in (
        ScenarioSet(
            name="users",
            description="PostgreSQL with 100,000 users (BENCH_USERS): list, search, balance, stats",
            seed=seed_users,
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
