"""The panel operations both API areas serve, each declared once with how each area words it.

An operation is :func:`subsvc.api.operation` with the Web API's and the cabinet's
:meth:`subsvc.api.Router.mount` overrides beside it (paths and operation names where the two
areas differ, their answer models); `web.py` and `cabinet.py` mount them (:func:`mount`). A
summary is the operation name's words (the endpoint default).

A handler answers an :class:`subsvc.api.outcome.Outcome`, which each area's answer model
reads: its text as `detail` (Web API) or `message` (cabinet). Where an area validates a body by its own rules
(squad names), the body's model is that area's (:func:`subsvc.api.outcome.with_body`).

Annotations are not postponed here: the endpoints read the handlers' annotations as objects.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Operation, Router, operation
from subsvc.api.endpoint import Handler
from subsvc.api.outcome import Outcome, with_body
from subsvc.services import services
from subsvc_panel import local, service
from subsvc_panel.routes.common import (
    MANAGE,
    NODE_RESPONSES,
    PANEL_FAILURES,
    READ,
    SQUAD_ACTION_RESPONSES,
    SQUAD_RESPONSES,
    panel,
)
from subsvc_panel.schemas import (
    InboundsListResponse,
    MigrationPreviewResponse,
    MigrationRequest,
    MigrationResponse,
    NodeActionRequest,
    NodeActionResponse,
    NodeInfo,
    NodesListResponse,
    NodeStatisticsResponse,
    NodeUsageResponse,
    PanelStatusResponse,
    RestartAllNodesPayload,
    SquadActionRequest,
    SquadCreateRequest,
    SquadOperationResponse,
    SquadUpdateRequest,
    SystemStatsResponse,
    WebInboundsResponse,
    WebMigrationResponse,
    WebNodeActionResponse,
    WebOperationResponse,
    WebSquadCreateRequest,
    WebSquadUpdateRequest,
)

Wording = Mapping[str, Any]
"""An area's :meth:`Router.mount` overrides of a shared operation."""


@dataclass(frozen=True)
class NodeOutcome(Outcome):
    """A node action's outcome: the cabinet shows the node's `is_disabled` after it."""

    is_disabled: bool | None = None


@dataclass(frozen=True)
class Shared:
    """A shared operation and each area's wording of it."""

    operation: Operation
    web: Wording = field(default_factory=dict)
    cabinet: Wording = field(default_factory=dict)

    def mount(self, router: Router) -> None:
        """Serve it on ``router`` (the Web API's or the cabinet admin's), worded for that area."""
        wording = dict(self.web if router.area == "web" else self.cabinet)
        body = wording.pop("body", None)
        router.mount(self.operation if body is None else with_body(self.operation, body), **wording)


def shared(
    method: str, path: str, *, web: Wording | None = None, cabinet: Wording | None = None, **options: Any
) -> Callable[[Handler], Shared]:
    """Declare a shared operation (``options`` as :func:`subsvc.api.operation`'s) with each
    area's wording; ``body`` in a wording is that area's model of the request body."""

    def declare(handler: Handler) -> Shared:
        return Shared(operation(method, path, **options)(handler), web or {}, cabinet or {})

    return declare


def mount(router: Router, *operations: Shared) -> None:
    """Mount ``operations`` on the area's router, in this order."""
    for item in operations:
        item.mount(router)


class SquadCreate(Protocol):
    name: str
    inbound_uuids: list[str]


class SquadUpdate(Protocol):
    name: str | None
    inbound_uuids: list[str] | None


# --- status and statistics -------------------------------------------------------------------


@shared("GET", "/status", permission=READ)
async def get_panel_status(request: Request) -> PanelStatusResponse:
    """Whether a panel is configured and whether it answers; never fails."""
    return await service.status(panel(request))


SYSTEM_DESCRIPTION = (
    "The panel's system statistics, fetched live: 503 without a panel, 502 when it does\n"
    "not answer; a part that fails alone is zero or empty."
)


@shared(
    "GET", "/system", permission=READ, responses=PANEL_FAILURES, cabinet={"description": SYSTEM_DESCRIPTION}
)
async def get_system_statistics(request: Request) -> SystemStatsResponse:
    """The panel's system statistics, fetched live (parts that fail are zero)."""
    return await service.system_stats(panel(request))


# --- nodes -----------------------------------------------------------------------------------


@shared("GET", "/nodes", permission=READ, responses=PANEL_FAILURES)
async def list_nodes(request: Request) -> NodesListResponse:
    found = await service.nodes(panel(request))
    return NodesListResponse(items=found, total=len(found))


@shared(
    "GET",
    "/nodes/realtime",
    permission=READ,
    responses=PANEL_FAILURES,
    web={"name": "get_nodes_realtime_usage"},
    cabinet={"name": "get_nodes_realtime"},
)
async def nodes_realtime(request: Request) -> list[dict[str, Any]]:
    return await panel(request).nodes_realtime_usage()


@shared(
    "POST",
    "/nodes/restart",
    permission=MANAGE,
    responses=PANEL_FAILURES,
    web={"response_model": WebNodeActionResponse},
    cabinet={"path": "/nodes/restart-all", "response_model": NodeActionResponse},
)
async def restart_all_nodes(request: Request, payload: RestartAllNodesPayload | None = None) -> Outcome:
    """Restart every node (`force_restart`: even where nothing changed; the body is optional)."""
    accepted = await panel(request).restart_all_nodes(force=payload is not None and payload.force_restart)
    return Outcome("Restart of all nodes requested" if accepted else None, success=accepted)


@shared("GET", "/nodes/{node_uuid}", permission=READ, responses=NODE_RESPONSES)
async def get_node_details(request: Request, node_uuid: str) -> NodeInfo:
    return await service.node(panel(request), node_uuid)


@shared("GET", "/nodes/{node_uuid}/statistics", permission=READ, responses=NODE_RESPONSES)
async def get_node_statistics(request: Request, node_uuid: str) -> NodeStatisticsResponse:
    return await service.node_statistics(panel(request), node_uuid)


@shared(
    "GET",
    "/nodes/{node_uuid}/usage",
    permission=READ,
    responses=NODE_RESPONSES,
    web={"name": "get_node_usage_range"},
    cabinet={"name": "get_node_usage"},
)
async def node_usage(
    request: Request, node_uuid: str, start: datetime | None = None, end: datetime | None = None
) -> NodeUsageResponse:
    """Each panel user's bytes on the node between `start` and `end` (default: the last week),
    the most first; `user_id` is the panel's numeric id of the user."""
    return NodeUsageResponse(items=await service.node_usage(panel(request), node_uuid, start, end))


@shared(
    "POST",
    "/nodes/{node_uuid}/actions",
    permission=MANAGE,
    responses=NODE_RESPONSES,
    web={"name": "manage_node", "response_model": WebNodeActionResponse},
    cabinet={
        "name": "perform_node_action",
        "path": "/nodes/{node_uuid}/action",
        "response_model": NodeActionResponse,
        "description": "Enable, disable or restart one node; `is_disabled` as the panel answers after it.",
    },
)
async def node_action(request: Request, node_uuid: str, payload: NodeActionRequest) -> NodeOutcome:
    """Enable, disable or restart one node."""
    node = await service.node_action(panel(request), node_uuid, payload.action)
    return NodeOutcome(service.NODE_ACTION_DONE[payload.action], is_disabled=node.is_disabled)


# --- squads and inbounds ---------------------------------------------------------------------


@shared(
    "POST",
    "/squads",
    status_code=201,
    permission=MANAGE,
    responses=PANEL_FAILURES,
    web={"response_model": WebOperationResponse, "body": WebSquadCreateRequest},
    cabinet={"response_model": SquadOperationResponse, "body": SquadCreateRequest},
)
async def create_squad(request: Request, payload: SquadCreate) -> Outcome:
    created = await panel(request).create_squad(payload.name, payload.inbound_uuids)
    return Outcome("Squad created", data=service.squad_fields(created))


@shared(
    "PATCH",
    "/squads/{squad_uuid}",
    permission=MANAGE,
    responses=SQUAD_RESPONSES,
    web={"response_model": WebOperationResponse, "body": WebSquadUpdateRequest},
    cabinet={"response_model": SquadOperationResponse, "body": SquadUpdateRequest},
)
async def update_squad(request: Request, squad_uuid: str, payload: SquadUpdate) -> Outcome:
    found = await service.update_squad(panel(request), squad_uuid, payload.name, payload.inbound_uuids)
    return Outcome("Squad updated", data=found)


@shared(
    "POST",
    "/squads/{squad_uuid}/actions",
    permission=MANAGE,
    responses=SQUAD_ACTION_RESPONSES,
    web={"name": "squad_actions", "response_model": WebOperationResponse},
    cabinet={
        "name": "perform_squad_action",
        "path": "/squads/{squad_uuid}/action",
        "response_model": SquadOperationResponse,
    },
)
async def squad_action(request: Request, squad_uuid: str, payload: SquadActionRequest) -> Outcome:
    """add_all_users, remove_all_users, delete, rename (with `name`), update_inbounds (with
    `inbound_uuids`)."""
    done = await service.squad_action(
        panel(request), squad_uuid, payload.action, payload.name, payload.inbound_uuids
    )
    return Outcome(done)


@shared(
    "GET", "/inbounds", permission=READ, responses=PANEL_FAILURES, web={"response_model": WebInboundsResponse}
)
async def list_inbounds(request: Request) -> InboundsListResponse:
    items = await service.inbounds(panel(request))
    return InboundsListResponse(items=items, total=len(items))


# --- migration -------------------------------------------------------------------------------


@shared(
    "POST",
    "/squads/migrate",
    permission=MANAGE,
    responses={400: local.SAME_SQUADS, **SQUAD_RESPONSES},
    web={"name": "migrate_squad", "response_model": WebMigrationResponse},
    cabinet={"name": "migrate_squad_users", "response_model": MigrationResponse},
)
async def migrate(request: Request, session: AsyncSession, payload: MigrationRequest) -> Outcome:
    """Move every subscription from the source squad to the target squad; the panel
    accounts follow through the synchronisation."""
    stats = await local.migrate(
        session, services(request.app).events, panel(request), payload.source_uuid, payload.target_uuid
    )
    return Outcome(f"Migrated {stats.updated} subscriptions", data=stats)


@shared(
    "GET",
    "/squads/{squad_uuid}/migration-preview",
    permission=READ,
    responses=SQUAD_RESPONSES,
    web={"name": "preview_squad_migration"},
    cabinet={"name": "preview_migration"},
)
async def migration_preview(
    request: Request, session: AsyncSession, squad_uuid: str
) -> MigrationPreviewResponse:
    return await local.migration_preview(session, panel(request), squad_uuid)


COMMON = (
    get_panel_status,
    get_system_statistics,
    list_nodes,
    nodes_realtime,
    restart_all_nodes,
    get_node_details,
    get_node_statistics,
    node_usage,
    create_squad,
    update_squad,
    squad_action,
    migrate,
    migration_preview,
)
"""What both areas serve first, in this order (the OpenAPI document's order)."""
