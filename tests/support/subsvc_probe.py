"""A test plugin: implements every hook, records the calls, and declares endpoints that
exercise the endpoint layer (inputs in every location, cabinet and admin areas, errors)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Literal

import probe_hookspecs
from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlmodel import Field as SQLField
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from subsvc.api import Endpoint, File, Form, Header, HTTPError, Query, Router, UploadedFile
from subsvc.auth.principal import Grants, Principal
from subsvc.db import UTCDateTime, utcnow
from subsvc.health import WebhookStatus
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job

PLUGIN_NAME = "probe"
__version__ = "9.9.9"
CALLS: list[str] = []
JOB_RUNS: list[tuple[str, dict[str, Any]]] = []  # (job name, keyword arguments)


class ProbeSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PROBE_")
    GREETING: str = "hello"
    LIMIT: int = 5


class ProbeNote(SQLModel, table=True):
    __tablename__ = "probe_notes"
    id: int | None = SQLField(default=None, primary_key=True)
    text: str
    created_at: datetime = SQLField(default_factory=utcnow, sa_type=UTCDateTime)


class NoteIn(BaseModel):
    text: str = Field(min_length=1, max_length=20)
    amount: int = Field(ge=0, le=100)


class NoteOut(BaseModel):
    id: int
    text: str
    created_at: datetime


class Teapot(Exception):
    """An exception only this plugin knows how to answer."""


class NoteRefused(Exception):
    """A domain error declared with its answer (``register_errors``)."""


class NoteTooLong(NoteRefused):
    """A subclass: answered as its base is declared, with its own message."""


class NoteGone(Exception):
    def __init__(self, note_id: int) -> None:
        super().__init__(note_id)
        self.note_id = note_id


web = Router(area="web", tag="probe")
cabinet = Router(area="cabinet", tag="probe-cabinet")
admin = Router(area="cabinet-admin", tag="probe-admin")


@web.post("/probe/items/{item_id}")
async def everything(
    item_id: int,
    payload: NoteIn,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    kind: Literal["a", "b"] = "a",
    tags: Annotated[list[str] | None, Query()] = None,
    x_trace: Annotated[str | None, Header(max_length=8)] = None,
) -> dict[str, Any]:
    """Inputs from the path, the query, a header and the body."""
    return {
        "item_id": item_id,
        "limit": limit,
        "kind": kind,
        "tags": tags,
        "trace": x_trace,
        **payload.model_dump(),
    }


@web.post(
    "/probe/notes", response_model=NoteOut, status_code=201, responses={409: "Conflict after the write"}
)
async def create_note(session: AsyncSession, payload: NoteIn, fail_after_write: bool = False) -> ProbeNote:
    note = ProbeNote(text=payload.text)
    session.add(note)
    await session.flush()
    if fail_after_write:
        raise HTTPError(409, "Conflict after the write")
    return note


class NoteCreated(BaseModel):
    note_id: int
    text: str


@web.post(
    "/probe/events", response_model=NoteOut, status_code=201, responses={409: "Failed after publishing"}
)
async def create_note_with_event(
    request: Request, session: AsyncSession, payload: NoteIn, fail: bool = False
) -> ProbeNote:
    """Write a note and publish ``probe.note_created`` in the same transaction."""
    note = ProbeNote(text=payload.text)
    session.add(note)
    await session.flush()
    assert note.id is not None
    request.app.state.events.publish(
        session, "probe.note_created", NoteCreated(note_id=note.id, text=note.text)
    )
    if fail:
        raise HTTPError(409, "Failed after publishing")
    return note


@web.post(
    "/probe/refusals/{kind}",
    response_model=NoteOut,
    status_code=201,
    responses={409: "Refused after the write", 410: "Gone"},
)
async def refuse_after_write(session: AsyncSession, kind: Literal["fixed", "message", "read"]) -> ProbeNote:
    """Write a note, then raise a declared domain error of the kind asked for."""
    session.add(ProbeNote(text="written before the refusal"))
    await session.flush()
    if kind == "fixed":
        raise NoteRefused("not shown")
    if kind == "message":
        raise ValueError("The note is refused: too long")
    raise NoteGone(7)


@web.post("/probe/upload")
async def upload(
    file: Annotated[UploadedFile, File()],
    note: Annotated[str, Form(max_length=10)] = "",
    copies: Annotated[int, Form(ge=1, le=3)] = 1,
    tags: Annotated[list[str] | None, Form()] = None,
) -> dict[str, Any]:
    """A multipart form: a file and text fields."""
    return {
        "filename": file.filename,
        "content_type": file.content_type,
        "content": file.data.decode(errors="replace"),
        "note": note,
        "copies": copies,
        "tags": tags,
    }


@web.post("/probe/upload-large", max_body_bytes=20_000)
async def upload_large(file: Annotated[UploadedFile, File()]) -> dict[str, Any]:
    """A multipart form allowed a larger body than ``MAX_BODY_BYTES``."""
    return {"size": len(file.data)}


@web.post("/probe/form")
async def form_fields(
    name: Annotated[str, Form(min_length=1)], count: Annotated[int, Form()] = 1
) -> dict[str, Any]:
    """A form of text fields only (urlencoded)."""
    return {"name": name, "count": count}


@web.get("/probe/notes", response_model=list[NoteOut])
async def list_notes(session: AsyncSession) -> list[ProbeNote]:
    return list((await session.exec(select(ProbeNote))).all())


@web.get("/probe/boom")
async def boom() -> None:
    raise RuntimeError("secret internal detail")


@web.get("/probe/teapot", responses={418: "I am a teapot"})
async def teapot() -> None:
    raise Teapot


@web.get("/probe/settings")
async def probe_settings(request: Request) -> dict[str, Any]:
    settings: ProbeSettings = request.app.state.settings_of["probe"]
    return {"greeting": settings.GREETING, "limit": settings.LIMIT}


@cabinet.get("/cabinet/probe/me")
async def me(principal: Principal) -> dict[str, Any]:
    return {"id": principal.id, "kind": principal.kind, "is_admin": principal.is_admin}


@admin.get("/cabinet/admin/probe/secret")
async def admin_secret(principal: Principal) -> dict[str, Any]:
    return {"id": principal.id}


@admin.get("/cabinet/admin/probe/notes", permission="probe:read")
async def admin_notes(principal: Principal) -> dict[str, Any]:
    return {"id": principal.id}


@hookimpl
def register_hookspecs() -> ModuleType:
    CALLS.append("register_hookspecs")
    return probe_hookspecs


@hookimpl
def register_settings() -> type[BaseSettings]:
    CALLS.append("register_settings")
    return ProbeSettings


@hookimpl
def register_models() -> Sequence[type[Any]]:
    CALLS.append("register_models")
    return [ProbeNote]


@hookimpl
def register_migrations() -> Path:
    CALLS.append("register_migrations")
    return Path(__file__).parent / "probe_migrations"


@hookimpl
def register_routes() -> Sequence[Endpoint]:
    CALLS.append("register_routes")
    return [*web.endpoints, *cabinet.endpoints, *admin.endpoints]


@hookimpl
def register_permissions() -> dict[str, list[str]]:
    CALLS.append("register_permissions")
    return {"probe": ["read", "write"]}


@hookimpl
def register_events() -> dict[str, type[BaseModel]]:
    CALLS.append("register_events")
    return {"probe.note_created": NoteCreated}


async def probe_ping(app: Starlette, **kwargs: Any) -> None:
    """A job: records that it ran, with its arguments (after ``sleep`` seconds if given)."""
    await asyncio.sleep(kwargs.get("sleep", 0))
    JOB_RUNS.append(("probe.ping", kwargs))


async def probe_tick(app: Starlette) -> None:
    """A periodic job (every ``app.state.probe_tick_seconds``, when a test sets it)."""
    JOB_RUNS.append(("probe.tick", {}))


async def probe_fail(app: Starlette) -> None:
    raise RuntimeError("job bug")


@hookimpl
def register_jobs() -> list[Job]:
    CALLS.append("register_jobs")
    return [
        Job("probe.ping", probe_ping),
        Job("probe.tick", probe_tick, every=lambda app: getattr(app.state, "probe_tick_seconds", None)),
        Job("probe.fail", probe_fail),
    ]


@hookimpl
def register_openapi_tags() -> list[dict[str, str]]:
    CALLS.append("register_openapi_tags")
    return [{"name": "probe", "description": "Probe endpoints."}]


@hookimpl
def register_errors() -> dict[type[Exception], Any]:
    CALLS.append("register_errors")
    return {
        NoteRefused: (409, "Refused after the write"),
        ValueError: 409,
        NoteGone: lambda exc: (410, f"Note {exc.note_id} is gone"),
    }


@hookimpl
def register_auth_responses() -> dict[str, dict[int, str]]:
    CALLS.append("register_auth_responses")
    return {"cabinet": {418: "The probe's cabinet teapot"}}


@hookimpl
def register_commands(cli: Any) -> None:
    CALLS.append("register_commands")
    parser = cli.add_parser("probe", help="say hello")
    parser.set_defaults(handler=lambda args: print("probe says hello") or 0)
    assert isinstance(parser, argparse.ArgumentParser)


@hookimpl
async def startup(app: Starlette) -> None:
    CALLS.append("startup")
    app.state.probe_started = True


@hookimpl
def shutdown(app: Starlette) -> None:
    CALLS.append("shutdown")


@hookimpl
def authenticate(connection: HTTPConnection, area: str) -> Principal | None:
    """Accept a test header in the cabinet area; defer to core otherwise."""
    if area == "cabinet" and connection.headers.get("x-probe-user"):
        CALLS.append("authenticate")
        return Principal(kind="user", id=int(connection.headers["x-probe-user"]))
    return None


@hookimpl
def permission_allowed(principal: Principal, permission: str, request: Request | None) -> bool | None:
    """Grant ``probe:read`` to the user whose JWT carries the claim ``probe``."""
    if permission.startswith("probe:"):
        CALLS.append("permission_allowed")
        return bool(principal.claims.get("probe"))
    return None


@hookimpl
def user_grants(session: Any, user_id: int) -> Grants | None:
    """Give user 4242 a probe role, so tests can see grants reach a caller."""
    if user_id == 4242:
        CALLS.append("user_grants")
        return Grants(roles=("Prober",), permissions=("probe:read",), level=10)
    return None


@hookimpl
def health_webhooks(app: Starlette) -> list[WebhookStatus]:
    """A payment provider's notifications, as a provider plugin would report them."""
    CALLS.append("health_webhooks")
    return [WebhookStatus("payment", "probe", True, "/probe/payments")]


@hookimpl
def handle_exception(request: Request, exc: Exception) -> Response | None:
    if isinstance(exc, Teapot):
        CALLS.append("handle_exception")
        return JSONResponse({"detail": "I am a teapot"}, status_code=418)
    return None
