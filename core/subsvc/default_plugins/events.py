"""Internal plugin: the event catalogue, ``GET /events/types`` and ``GET /events/types/{event_type}``,
and the outbox's upkeep (job ``core.outbox_prune``, hourly).

Every event type a plugin declares with ``register_events``, the plugin that declared it, and
the JSON Schema of its payload as subscribers, webhooks and ``/ws`` receive it (the payload
model's serialisation schema: computed fields included).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response

from subsvc.api import HTTPError, Router
from subsvc.default_plugins import serving
from subsvc.events import prune_outbox
from subsvc.hookspecs import hookimpl
from subsvc.jobs import Job

router = Router(area="web", tag="events")
EVENT_TYPE_NOT_FOUND = "Event type not found"


class EventTypeResponse(BaseModel):
    """A declared event type."""

    event_type: str = Field(description="The name events of this type are published under.")
    plugin: str = Field(description="The plugin that declared it.")
    description: str | None = Field(description="What the event means (the payload model's docstring).")
    payload_schema: dict[str, Any] = Field(description="JSON Schema of the payload.")


_LIST = TypeAdapter(list[EventTypeResponse])
_ONE = TypeAdapter(EventTypeResponse)


def catalogue_of(app: Starlette) -> dict[str, EventTypeResponse]:
    """The app's catalogue by event type, in plugin order. The set of event types is fixed
    while the app runs: it is built on first use and kept."""
    state = app.state
    cached: dict[str, EventTypeResponse] | None = getattr(state, "event_types", None)
    if cached is not None:
        return cached
    owners = {
        event_type: info.name
        for info, declared in state.plugins.each("register_events")
        for event_type in declared or {}
    }
    cached = {}
    for event_type, model in state.events.catalogue.items():
        doc = model.__doc__ if model.__doc__ and model.__doc__ is not BaseModel.__doc__ else None
        cached[event_type] = EventTypeResponse(
            event_type=event_type,
            plugin=owners.get(event_type, "core"),  # not from a plugin's hook: core's own
            description=inspect.cleandoc(doc) if doc else None,
            payload_schema=model.model_json_schema(mode="serialization"),
        )
    state.event_types = cached
    return cached


@router.get("/events/types", response_model=list[EventTypeResponse])
async def list_event_types(request: Request) -> Response:
    """Every event type the running plugins declare, with the plugin that declared it and the
    JSON Schema of its payload. A webhook subscribes to one of these types, or to `*`."""
    body: bytes | None = getattr(request.app.state, "event_type_list", None)
    if body is None:
        body = request.app.state.event_type_list = _LIST.dump_json(list(catalogue_of(request.app).values()))
    return Response(body, media_type="application/json")


@router.get(
    "/events/types/{event_type}", response_model=EventTypeResponse, responses={404: EVENT_TYPE_NOT_FOUND}
)
async def get_event_type(request: Request, event_type: str) -> Response:
    """One declared event type; 404 `Event type not found` for a type no running plugin declares."""
    found = catalogue_of(request.app).get(event_type)
    if found is None:
        raise HTTPError(404, EVENT_TYPE_NOT_FOUND)
    return Response(_ONE.dump_json(found), media_type="application/json")


register_routes, register_openapi_tags = serving(
    router, "The catalogue of event types and their payload schemas."
)


PRUNE_EVERY_SECONDS = 3600


async def prune(app: Starlette) -> None:
    """Job ``core.outbox_prune``: dispatched events older than ``OUTBOX_RETENTION_DAYS`` go."""
    days = app.state.settings.OUTBOX_RETENTION_DAYS
    if days:
        await prune_outbox(app.state.db, timedelta(days=days))


@hookimpl
def register_jobs() -> Sequence[Job]:
    return [Job("core.outbox_prune", prune, every=PRUNE_EVERY_SECONDS)]
