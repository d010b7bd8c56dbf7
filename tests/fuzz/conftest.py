"""The fuzz run (``nox -s fuzz``): schemathesis against the whole app, in-process.

Not part of the normal suite (``norecursedirs`` in pyproject.toml keeps ``pytest`` out of this
folder); run it with ``pytest tests/fuzz`` after installing ``.[fuzz]`` and every plugin.

One app with every plugin, on a fresh database (``FUZZ_DATABASE_URL``: PostgreSQL, its public
schema emptied first; unset or empty: SQLite in a temporary folder), migrated when it starts
and seeded through the API itself (:func:`seed`), with loopback fakes of the messenger's Bot
API, of the VPN panel and of an SMTP server, so nothing leaves the machine. Each operation
of ``/openapi.json`` is one test: ``FUZZ_EXAMPLES`` (default 20) schema-valid requests and as
many schema-invalid ones (hypothesis, derandomized: the same requests every run; ``FUZZ_SEED``
picks another deterministic set, to explore further), each sent with
its area's credential (Web API: ``X-API-Key``; cabinet: a member's access JWT; cabinet admin:
an administrator's; public operations: none) and its response judged by :data:`CHECKS`.
Parameters named like seeded things draw existing values part of the time
(:func:`known_values`). A test fails with one reproducing request per distinct failure (with
``FUZZ_FAIL_ON=server-errors``, only for 500s); a 500 shows the traceback the app logged for
it. ``FUZZ_REPORT`` names a JSON file to write every finding to.

Operations that could lock the run's own credentials out run last, with the cases aimed at
those credentials left out (:data:`LOCKOUT`); :data:`EXCLUDED` lists operations not fuzzed at
all. After each operation the credentials are tried again, so an operation that broke them is
named at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import hypothesis
import pytest
import schemathesis
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy.engine import make_url
from starlette.applications import Starlette
from subsvc_panel.testing import FakePanel, serve_fake_panel

from subsvc.app import create_app
from subsvc.settings import Settings
from subsvc.testing import (
    ADMIN_MESSENGER_ID,
    API_KEY,
    USER_MESSENGER_ID,
    reset_database,
    settings_for_tests,
)
from subsvc.testing_db import ensure_database
from subsvc.testing_messenger import serve_fake_bot_api

# --- what is fuzzed, and how ---------------------------------------------------------------------

CHECKS = (
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    ignored_auth,  # a 2xx with the credential: the same request without it, and with a wrong one
)
ADMIN_ID, MEMBER_ID = 1, 2  # the seeded users whose access JWTs the run sends
REQUEST_SECONDS = 60  # a request still unanswered after this is a finding ("transport")

# Operations that can take the run's own credentials away. They run after all others, and
# their cases whose path parameter names one of the run's credentials (the bootstrap API
# token; the administrator and the member) are left out — the rest of their cases run.
LOCKOUT: dict[str, tuple[str, str]] = {
    "POST /tokens/{token_id}/revoke": ("token_id", "revoking the run's API token refuses every Web API call"),
    "DELETE /tokens/{token_id}": ("token_id", "deleting the run's API token refuses every Web API call"),
    "PATCH /users/{user_id}": (
        "user_id",
        "a status other than active (or another messenger id) ends the run's cabinet logins",
    ),
    "DELETE /cabinet/admin/users/{user_id}": ("user_id", "a deleted user's access JWT is refused (403)"),
    "DELETE /cabinet/admin/users/{user_id}/full": ("user_id", "the user row goes: its access JWT gets 404"),
    "POST /cabinet/admin/users/{user_id}/block": ("user_id", "a blocked user's access JWT is refused (403)"),
    "POST /cabinet/admin/users/{user_id}/status": (
        "user_id",
        "blocked or deleted: its access JWT is refused",
    ),
    "POST /cabinet/admin/users/{user_id}/disable": ("user_id", "a disabled user's access JWT is refused"),
}
# Operations not fuzzed at all, with the reason.
EXCLUDED: dict[str, str] = {}


def examples() -> int:
    return int(os.environ.get("FUZZ_EXAMPLES") or 20)


def hypothesis_seed() -> int | None:
    """``FUZZ_SEED``: unset, the derandomized requests; a number, another set (the same for
    the same number)."""
    value = os.environ.get("FUZZ_SEED")
    return int(value) if value else None


def fails_on_everything() -> bool:
    """``FUZZ_FAIL_ON``: ``any`` (the default: a failure of any check fails its operation's
    test) or ``server-errors`` (only 500s and requests the app did not answer do; the rest is
    reported). CI's bounded pass uses the second."""
    value = os.environ.get("FUZZ_FAIL_ON") or "any"
    if value not in ("any", "server-errors"):
        raise pytest.UsageError(f"FUZZ_FAIL_ON is 'any' or 'server-errors', not {value!r}")
    return value == "any"


def database_url() -> str | None:
    return os.environ.get("FUZZ_DATABASE_URL") or None


# --- the run ---------------------------------------------------------------------------------------


@dataclass
class Finding:
    """One failing response: which check, what was sent, what came back."""

    operation: str
    check: str
    title: str
    status: int
    mode: str
    request: str
    response: str
    traceback: str = ""

    @property
    def server_error(self) -> bool:
        return self.check == "transport" or (self.check == "not_a_server_error" and self.status == 500)

    @property
    def cause(self) -> str:
        """What makes two findings the same defect: the check, and for a 500 the line that
        raised, else the failure's title and the status."""
        if self.traceback:
            return f"{self.check}: {_last_frame(self.traceback)}"
        return f"{self.check}: {self.title} [{self.status}]"


def _last_frame(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    frames = [line for line in lines if line.startswith("File ")]
    where = frames[-1] if frames else ""
    where = re.sub(r'File ".*?([^/]+/[^/]+\.py)"', r"\1", where)
    what = re.sub(r"\d+", "N", lines[-1] if lines else "")[:160]
    return f"{where} -> {what}"


class ErrorLog(logging.Handler):
    """The tracebacks the app logs: per request id (its 500s), and those of background work."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.by_request: dict[str, str] = {}
        self.background: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + "".join(traceback.format_exception(*record.exc_info))
        if record.name == "subsvc.errors" and record.args:
            self.by_request[str(record.args[0])] = text  # type: ignore[index]
        else:
            self.background.append(f"{record.name}: {text}")


@dataclass
class FuzzRun:
    """The app under test, its fakes, its credentials, and what the checks found."""

    url: str | None
    examples: int
    strict: bool = True  # every check's failure fails the test, else only server errors
    seed: int | None = None  # hypothesis' seed; None: derandomized
    findings: list[Finding] = field(default_factory=list)
    requests: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)
    token_ids: set[int] = field(default_factory=set)
    errors: ErrorLog = field(default_factory=ErrorLog)
    documented_5xx: Counter[str] = field(default_factory=Counter)
    statuses: dict[str, Counter[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._stack = ExitStack()

    # set-up

    def start(self) -> None:
        stack = self._stack
        portal = stack.enter_context(start_blocking_portal())
        self.bot = stack.enter_context(portal.wrap_async_context_manager(serve_fake_bot_api()))
        self.panel: FakePanel = stack.enter_context(portal.wrap_async_context_manager(serve_fake_panel()))
        _seed_panel(self.panel)
        self.smtp_port = stack.enter_context(portal.wrap_async_context_manager(smtp_sink()))
        url = self.url
        if url is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="subsvc-fuzz-"))
            url = f"sqlite+aiosqlite:///{folder}/fuzz.db"
        else:
            asyncio.run(ensure_database(url))
            asyncio.run(reset_database(url))
        self.database = make_url(url).get_backend_name()
        environment = {**self.panel.env(), **PLUGIN_ENVIRONMENT, "SMTP_PORT": str(self.smtp_port)}
        saved = {name: os.environ.get(name) for name in environment}
        os.environ.update(environment)
        stack.callback(_restore, saved)
        self.app: Starlette = create_app(
            settings_for_tests(
                url,
                IS_DOCS_ENABLED=True,
                # login endpoints are limited per client IP: the run would see mostly 429s
                RATE_LIMIT_ENABLED=False,
                **self.bot.settings(),
            ),
            migrate=True,
        )
        logging.getLogger().addHandler(self.errors)
        stack.callback(logging.getLogger().removeHandler, self.errors)
        self.asgi = RunLifespan(self.app)
        stack.callback(self.asgi.close)
        config = schemathesis.Config.from_dict(
            {
                "seed": 0,
                "generation": {"with-security-parameters": False, "deterministic": True},
                "output": {"sanitization": {"enabled": False}},  # findings show what was sent
                **known_values(self.app),
            }
        )
        # Loading the document starts the app (its lifespan migrates the fresh database).
        self.schema = schemathesis.openapi.from_asgi("/openapi.json", self.asgi, config=config)
        self.operations = {result.ok().label: result.ok() for result in self.schema.get_all_operations()}
        with asgi.get_client(self.asgi) as client:
            seed(self, client)

    def stop(self) -> None:
        self._stack.close()

    # credentials

    def credential(self, label: str) -> tuple[str, dict[str, str]]:
        """Whose credential the operation's requests carry, and its headers."""
        operation = self.operations[label]
        if not operation.definition.raw.get("security"):
            return "anonymous", {}
        if operation.path.startswith("/cabinet/admin"):
            return "as the administrator", self.bearer(ADMIN_ID, ADMIN_MESSENGER_ID)
        if operation.path.startswith("/cabinet"):
            return "as the member", self.bearer(MEMBER_ID, USER_MESSENGER_ID)
        return "with the API key", {"X-API-Key": API_KEY}

    def bearer(self, user_id: int, messenger_id: int) -> dict[str, str]:
        token = self.app.state.jwt.access_token(user_id, messenger_id=messenger_id)
        return {"Authorization": f"Bearer {token}"}

    def credentials_work(self) -> list[str]:
        """Which of the run's credentials the app no longer accepts."""
        broken = []
        with asgi.get_client(self.asgi) as client:
            for name, path, headers in (
                ("API key", "/tokens", {"X-API-Key": API_KEY}),
                ("member JWT", "/cabinet/auth/me", self.bearer(MEMBER_ID, USER_MESSENGER_ID)),
                (
                    "administrator JWT",
                    "/cabinet/admin/users/stats",
                    self.bearer(ADMIN_ID, ADMIN_MESSENGER_ID),
                ),
            ):
                response = client.get(path, headers=headers)
                if response.status_code != 200:
                    broken.append(f"{name}: GET {path} answered {response.status_code} {response.text[:200]}")
        return broken

    # fuzzing

    def fuzz(self, label: str) -> list[Finding]:
        """Send the operation's cases; the findings of this operation."""
        operation = self.operations[label]
        _seed_panel(self.panel)
        before = len(self.findings)
        started = time.monotonic()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            self._explore(label, mode, operation.as_strategy(generation_mode=mode))
        self.seconds[label] = time.monotonic() - started
        return self.findings[before:]

    def _explore(self, label: str, mode: GenerationMode, strategy: Any) -> None:
        lockout = LOCKOUT.get(label)

        @settings(
            max_examples=self.examples,
            derandomize=self.seed is None,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @hypothesis.seed(self.seed)
        @given(case=strategy)
        def explore(case: Any) -> None:
            if lockout is not None:
                assume(not self._aims_at_run(lockout[0], case.path_parameters.get(lockout[0])))
            if case.operation.path.startswith("/webhooks") and isinstance(case.body, dict):
                case.body = _local_webhook_target(case.body)
            self._send(label, mode, case)

        with contextlib.suppress(Unsatisfiable):  # no case: nothing to negate, or all aimed at the run
            explore()

    def _aims_at_run(self, name: str, value: Any) -> bool:
        protected = self.token_ids if name == "token_id" else {ADMIN_ID, MEMBER_ID}
        try:
            number = int(str(value).strip())
        except ValueError:
            try:
                number = int(float(str(value).strip()))
            except (ValueError, OverflowError):
                return False
        return number in protected

    def _send(self, label: str, mode: GenerationMode, case: Any) -> None:
        self.requests[label] += 1
        who, headers = self.credential(label)  # a fresh JWT each time: never expired
        request = f"{_curl(case)}  ({who})"
        try:
            response = case.call(headers=headers, timeout=REQUEST_SECONDS)
        except Exception as exc:  # the app raised past its own error handling, or hung
            text = "".join(traceback.format_exception(exc))
            self.findings.append(
                Finding(label, "transport", type(exc).__name__, 0, mode.value, request, "", text)
            )
            return
        self.statuses.setdefault(label, Counter())[response.status_code] += 1
        self._last = f"{response.status_code} {response.content[:300]!r}"
        transport = {"headers": headers, "timeout": REQUEST_SECONDS}
        for check in CHECKS:
            try:
                case.validate_response(response, checks=[check], headers=headers, transport_kwargs=transport)
            except FailureGroup as group:
                for failure in group.exceptions:
                    self._record(label, mode, check.__name__, failure, request, response)
            except Failure as failure:
                self._record(label, mode, check.__name__, failure, request, response)

    def _record(
        self, label: str, mode: GenerationMode, check: str, failure: Failure, request: str, response: Any
    ) -> None:
        status = response.status_code
        if status == 500 and check != "not_a_server_error":
            return  # a 500 is counted once, as a server error
        if check == "not_a_server_error" and status != 500 and str(status) in self.documented(label):
            # a 502/503 the operation declares (an upstream refused or is not configured)
            self.documented_5xx[f"{label} {status}"] += 1
            return
        request_id = (response.headers.get("x-request-id") or [""])[0]
        body = response.content[:500].decode(errors="replace")
        logged = self.errors.by_request.pop(request_id, "") if status >= 500 else ""
        self.findings.append(
            Finding(label, check, failure.title, status, mode.value, request, f"{status} {body}", logged)
        )

    def failures(self, findings: list[Finding]) -> str:
        """The failures among ``findings`` (all, or the server errors), one example of each
        distinct cause; empty when none."""
        failing = findings if self.strict else [f for f in findings if f.server_error]
        if not failing:
            return ""
        distinct: dict[str, Finding] = {}
        for finding in failing:
            distinct.setdefault(finding.cause, finding)
        lines = [f"{len(failing)} failing responses, {len(distinct)} distinct:"]
        for cause, finding in distinct.items():
            lines += [
                f"- {cause} ({finding.mode})",
                f"    {finding.request}",
                f"    -> {finding.response[:300]}",
            ]
            lines += ["    " + line for line in finding.traceback.strip().splitlines()[-8:]]
        return "\n".join(lines)

    def documented(self, label: str) -> set[str]:
        return set(self.operations[label].definition.raw.get("responses", {}))

    def report(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "examples": self.examples,
            "seed": self.seed,
            "requests": sum(self.requests.values()),
            "operations": len(self.requests),
            "findings": [finding.__dict__ | {"cause": finding.cause} for finding in self.findings],
            "documented_5xx": dict(self.documented_5xx),
            "statuses": {label: dict(sorted(counts.items())) for label, counts in self.statuses.items()},
            "background_errors": self.errors.background,
        }


class RunLifespan:
    """The app as schemathesis reaches it, its lifespan lasting the whole run.

    Schemathesis runs ASGI apps in an event loop of its own, starting an app's lifespan with
    its first request, and its pytest plugin ends every lifespan after each test: an app
    cannot start twice (its plugins' start-ups register things once). So the lifespan
    schemathesis sees is this wrapper's; the app's own starts with the first and ends with
    :meth:`close`, in schemathesis' loop, where the app serves.
    """

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.closing = False
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self._start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.closing:
                    await self._end()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _start(self) -> None:
        if self._task is not None:
            return
        started, self._stop = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with self.app.router.lifespan_context(self.app):
                started.set()
                assert self._stop is not None
                await self._stop.wait()

        self._task = asyncio.create_task(hold())
        waiter = asyncio.create_task(started.wait())
        await asyncio.wait({self._task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if self._task.done():
            waiter.cancel()
            self._task.result()  # the start-up failed: its exception

    async def _end(self) -> None:
        if self._task is not None and self._stop is not None:
            self._stop.set()
            await self._task

    def close(self) -> None:
        """End the app's lifespan (in the loop it runs in)."""
        self.closing = True
        with asgi.get_client(self):
            pass  # a lifespan of this wrapper is running (again), so that ending it ends the app's
        asgi.shutdown_lifespans()


# Plugin settings of the run (environment variables, read when the app is built).
PLUGIN_ENVIRONMENT = {
    "WEBHOOK_MAX_ATTEMPTS": "1",
    "BOT_USERNAME": "fuzz_bot",  # deep-link logins need it (else 503)
    # e-mail: the SMTP sink of the run (plain SMTP, no login), cheap password hashing
    "SMTP_HOST": "127.0.0.1",
    "SMTP_USE_TLS": "false",
    "SMTP_TIMEOUT": "5",
    "SMTP_FROM_EMAIL": "noreply@example.com",
    "CABINET_URL": "https://cabinet.example.com",
    "CABINET_PASSWORD_ARGON2_TIME_COST": "1",
    "CABINET_PASSWORD_ARGON2_MEMORY_KIB": "1024",
    "CABINET_PASSWORD_ARGON2_PARALLELISM": "1",
}
# Webhook targets: a closed loopback port, whatever host the case named (validation sees the
# generated URL's shape; deliveries go nowhere off the machine).
WEBHOOK_SINK = "127.0.0.1:9"


def _local_webhook_target(body: dict[str, Any]) -> dict[str, Any]:
    url = body.get("url")
    if not isinstance(url, str):
        return body
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return body
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return body
    return {**body, "url": urlunsplit(parts._replace(netloc=WEBHOOK_SINK))}


class _AcceptAll:
    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        return "250 Message accepted for delivery"


@asynccontextmanager
async def smtp_sink() -> AsyncIterator[int]:
    """An SMTP server on a free loopback port that accepts every message; yields the port."""
    from aiosmtpd.smtp import SMTP

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(_AcceptAll()), "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def _curl(case: Any) -> str:
    try:
        return str(case.as_curl_command())
    except Exception:
        return f"{case.method} {case.formatted_path} {case.body!r}"


def _restore(saved: dict[str, str | None]) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


# Fixed panel objects, so path parameters can name existing ones.
PANEL_NODES = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222")
PANEL_SQUADS = ("33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444")


PANEL_INBOUND = "55555555-5555-4555-8555-555555555555"


def _seed_panel(panel: FakePanel) -> None:
    """The panel's fixed objects, again where an operation removed them (a squad action
    deletes squads): the values of :func:`known_values` keep naming something."""
    if PANEL_INBOUND not in panel.inbounds:
        panel.add_inbound("vless-main", uuid=PANEL_INBOUND)
    for number, uuid in enumerate(PANEL_NODES, 1):
        if uuid not in panel.nodes:
            panel.add_node(f"Node{number}", uuid=uuid)
    for number, uuid in enumerate(PANEL_SQUADS, 1):
        if uuid not in panel.squads:
            panel.add_squad(f"Squad{number}", [PANEL_INBOUND], uuid=uuid)


SEEDED_IDS = [1, 2, 3, 4, 5]  # every seeded table has rows 1..3 at least
SEEDED_MESSENGER_IDS = [ADMIN_MESSENGER_ID, USER_MESSENGER_ID, 900_000_003]
SEEDED_PROMO_CODES = ["SEED1", "SEED2", "SEED3"]


def known_values(app: Starlette) -> dict[str, Any]:
    """Schemathesis dictionaries: values that name existing things (seeded rows, the panel's
    objects, declared event types, broadcast audiences), drawn for some of the parameters of
    those names instead of generated ones, so requests get past "not found"."""
    from subsvc_broadcasts.filters import CUSTOM_FILTERS, EMAIL_FILTERS, FILTERS
    from subsvc_cabinet_admin_users.subscription_actions import ACTIONS

    dictionaries = {
        "ids": SEEDED_IDS,
        "messenger_ids": SEEDED_MESSENGER_IDS,
        "squads": list(PANEL_SQUADS),
        "nodes": list(PANEL_NODES),
        "event_types": ["*", *sorted(app.state.events.catalogue)],
        "audiences": [*FILTERS, *CUSTOM_FILTERS, *EMAIL_FILTERS],
        "promo_codes": SEEDED_PROMO_CODES,
        "webhook_urls": [f"http://{WEBHOOK_SINK}/hook", f"https://{WEBHOOK_SINK}/"],
        "subscription_actions": sorted(ACTIONS),
        "button_targets": ["https://example.com/page", "tg://resolve?domain=fuzz_bot"],
        # longer than most columns: texts the schema does not bound must still be stored
        "long_texts": ["L" * 256, "L" * 513, "L" * 1025, "L" * 4097, "L" * 65_537],
    }
    integer_paths = {
        f"path.{name}"
        for endpoint in app.state.endpoints
        for name in re.findall(r"{(\w+_id)}", endpoint.path)
        if name != "messenger_id"
    }
    bindings = {
        "ids": [
            (sorted(integer_paths), 0.5),
            (["query.user_id", "query.subscription_id", "query.offer_id", "query.role_id"], 0.3),
            (["body.user_id", "body.role_id", "body.promo_group_id", "body.subscription_id"], 0.3),
            (["body.tariff_id", "body.server_id", "body.offer_id", "body.referred_by_id"], 0.3),
        ],
        "messenger_ids": [(["path.messenger_id", "query.messenger_id", "body.messenger_id"], 0.5)],
        "squads": [(["path.squad_uuid", "body.squad_uuid", "body.squadUuid"], 0.5)],
        "nodes": [(["path.node_uuid"], 0.5)],
        "event_types": [(["path.event_type", "body.event_type"], 0.5)],
        "audiences": [(["body.target"], 0.5)],
        "promo_codes": [(["body.code"], 0.3)],
        "webhook_urls": [(["body.url"], 0.5)],
        "subscription_actions": [(["body.action"], 0.5)],
        "button_targets": [(["body.action_value"], 0.5)],
    }
    taken = {key for groups in bindings.values() for keys, _ in groups for key in keys}
    texts = [f"body.{name}" for name in _body_text_properties(app) if f"body.{name}" not in taken]
    bindings["long_texts"] = [(texts, 0.2)]
    parameters = {
        key: {"dictionary": name, "probability": probability}
        for name, groups in bindings.items()
        for keys, probability in groups
        for key in keys
    }
    return {
        "dictionaries": {name: {"values": values} for name, values in dictionaries.items()},
        "parameters": parameters,
    }


def _body_text_properties(app: Starlette) -> list[str]:
    """The paths of the text properties of the request bodies (``media.file_id``,
    ``rows[*].id``: nested objects and arrays, a few levels down)."""
    from subsvc.api.openapi import build_document

    document = build_document(app.state.endpoints, title="", version="")
    components = document["components"]["schemas"]

    def resolve(schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = components[schema["$ref"].rsplit("/", 1)[1]]
        return schema

    paths: set[str] = set()

    def walk(schema: Any, prefix: str, depth: int) -> None:
        for name, field_schema in resolve(schema).get("properties", {}).items():
            if not re.fullmatch(r"[\w-]+", name):
                continue
            for variant in map(resolve, field_schema.get("anyOf", [field_schema])):
                kind = variant.get("type")
                if kind == "string":
                    paths.add(prefix + name)
                elif depth < 3 and kind == "object":
                    walk(variant, f"{prefix}{name}.", depth + 1)
                elif depth < 3 and kind == "array":
                    walk(variant.get("items", {}), f"{prefix}{name}[*].", depth + 1)

    for operations in document["paths"].values():
        for operation in operations.values():
            for content in operation.get("requestBody", {}).get("content", {}).values():
                walk(content.get("schema", {}), "", 0)
    return sorted(paths)


def seed(run: FuzzRun, client: Any) -> None:
    """A few rows of everything, made through the API (ids 1.. exist for path parameters)."""
    key = {"X-API-Key": API_KEY}
    admin = run.bearer(ADMIN_ID, ADMIN_MESSENGER_ID)

    def call(method: str, path: str, body: Any = None, headers: dict[str, str] = key) -> Any:
        response = client.request(method, path, json=body, headers=headers)
        assert response.status_code < 300, (
            f"seeding: {method} {path} answered {response.status_code} {response.text}"
        )
        return response.json() if response.content else None

    run.token_ids = {token["id"] for token in call("GET", "/tokens")}
    call("POST", "/tokens", {"name": "second token"})
    for number in (1, 2, 3):
        call("POST", "/promo-groups", {"name": f"Group {number}", "priority": number})
    users = [
        {"messenger_id": ADMIN_MESSENGER_ID, "username": "admin", "first_name": "Admin"},
        {"messenger_id": USER_MESSENGER_ID, "username": "member", "first_name": "Member"},
        {"messenger_id": 900_000_003, "username": "third", "referred_by_id": MEMBER_ID, "promo_group_id": 2},
    ]
    for user in users:
        call("POST", "/users", user)
    for number, squad in enumerate(PANEL_SQUADS, 1):
        server = {
            "squadUuid": squad,
            "displayName": f"Server {number}",
            "countryCode": "DE",
            "isTrialEligible": True,
        }
        call("POST", "/servers", {**server, "priceKopeks": 10_000 * number, "promoGroupIds": [1]})
    for number in (1, 2, 3):
        tariff = {
            "name": f"Tariff {number}",
            "period_prices": [
                {"days": 30, "price_kopeks": 19_900 * number},
                {"days": 90, "price_kopeks": 49_900},
            ],
            "allowed_squads": list(PANEL_SQUADS[: 1 + number % 2]),
            "traffic_limit_gb": 100 * number,
            "device_limit": number,
            "promo_group_ids": [1],
        }
        call("POST", "/cabinet/admin/tariffs", tariff, admin)
    for user_id in (MEMBER_ID, 3):
        call("POST", f"/users/{user_id}/deposit", {"amount_kopeks": 100_000, "description": "seed"})
        call("POST", f"/users/{user_id}/subscription", {"period_days": 30, "squad_uuid": PANEL_SQUADS[0]})
    call("POST", "/subscriptions", {"user_id": ADMIN_ID, "period_days": 7, "is_trial": True})
    for number, kind in enumerate(("balance", "subscription_days", "discount"), 1):
        code = {"code": f"SEED{number}", "type": kind, "balance_bonus_kopeks": 10 * number, "max_uses": 5}
        call("POST", "/promo-codes", {**code, "subscription_days": number})
    for number in (1, 2, 3):
        call("POST", "/pages/faq", {"title": f"Question {number}", "content": f"Answer {number}"})
        call("POST", "/welcome-texts", {"text": f"Welcome {number}"})
        button = {
            "text": f"Site {number}",
            "action_type": "url",
            "action_value": f"https://example.com/{number}",
        }
        call("POST", "/main-menu/buttons", button)
        call("POST", "/main-menu/messages", {"message_text": f"Message {number}"})
        call("POST", "/pinned-messages", {"content": f"Pinned {number}"})
        webhook = {"name": f"Hook {number}", "url": f"http://{WEBHOOK_SINK}/{number}", "event_type": "*"}
        call("POST", "/webhooks", webhook)
        offer = {"notification_type": "seed", "valid_hours": 24, "discount_percent": 10, "user_id": MEMBER_ID}
        call("POST", "/promo-offers", offer)
        event = {"event_type": "purchase", "user_id": MEMBER_ID, "amount_kopeks": 100 * number}
        call("POST", "/notifications/subscriptions", event)
        role = call(
            "POST", "/cabinet/admin/rbac/roles", {"name": f"Role {number}", "level": 10 * number}, admin
        )
        policy = {"name": f"Policy {number}", "effect": "allow", "resource": "users", "role_id": role["id"]}
        call("POST", "/cabinet/admin/rbac/policies", policy, admin)
    call("POST", "/cabinet/admin/rbac/assignments", {"user_id": 3, "role_id": role["id"]}, admin)
    call("PUT", "/pages/service-rules", {"content": "Rules"})
    call("POST", "/broadcasts", {"target": "all", "message_text": "Hello"})


# --- pytest wiring ---------------------------------------------------------------------------------

_RUN: FuzzRun | None = None


def operation_labels() -> list[str]:
    """The operations of the document, in the order they run: deletions after the others (so
    the seeded rows live through most of the run), the lock-out ones last."""
    app = create_app(Settings(_env_file=None, ENVIRONMENT="test", IS_DOCS_ENABLED=True))
    labels = [f"{e.method} {e.path}" for e in app.state.endpoints if e.include_in_schema]

    def position(label: str) -> int:
        return 2 if label in LOCKOUT else 1 if label.startswith("DELETE ") else 0

    return sorted(labels, key=position)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "label" in metafunc.fixturenames:
        params = [
            pytest.param(label, marks=pytest.mark.skip(reason=EXCLUDED[label]))
            if label in EXCLUDED
            else label
            for label in operation_labels()
        ]
        metafunc.parametrize("label", params)


@pytest.fixture(scope="session")
def fuzz() -> Iterator[FuzzRun]:
    global _RUN
    run = FuzzRun(database_url(), examples(), fails_on_everything(), hypothesis_seed())
    try:
        run.start()
        _RUN = run
        yield run
    finally:
        run.stop()
        if path := os.environ.get("FUZZ_REPORT"):
            Path(path).write_text(json.dumps(run.report(), indent=1, ensure_ascii=False))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    run = _RUN
    if run is None:
        return
    write = terminalreporter.write_line
    seeded = "derandomized" if run.seed is None else f"seed {run.seed}"
    terminalreporter.section(
        f"fuzz: {run.database}, {run.examples} examples per operation and mode, {seeded}"
    )
    write(f"{sum(run.requests.values())} requests to {len(run.requests)} operations")
    by_check = Counter(finding.check for finding in run.findings)
    causes = Counter(finding.cause for finding in run.findings)
    for check in [c.__name__ for c in CHECKS] + ["transport"]:
        write(f"  {check}: {by_check.get(check, 0)} failing responses")
    write(f"{len(causes)} distinct causes:")
    for cause, count in causes.most_common():
        write(f"  {count:5d}  {cause}")
    never = [label for label, counts in run.statuses.items() if not any(200 <= s < 300 for s in counts)]
    write(f"{len(never)} operations never answered 2xx: {', '.join(never)}")
    if run.documented_5xx:
        write(
            "documented 502/503 answers (not failures): "
            + ", ".join(f"{k} x{v}" for k, v in run.documented_5xx.items())
        )
    if run.errors.background:
        write(f"{len(run.errors.background)} errors logged by background work (first lines):")
        for text in dict.fromkeys(line.splitlines()[0] for line in run.errors.background):
            write(f"  {text[:200]}")
    slowest = sorted(run.seconds.items(), key=lambda item: -item[1])[:5]
    write("slowest operations: " + ", ".join(f"{label} {seconds:.1f}s" for label, seconds in slowest))
