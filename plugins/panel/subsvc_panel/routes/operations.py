"""The panel operations both API areas serve, each declared once by :func:`declare`.

The Web API (`web.py`) and the cabinet admin (`cabinet.py`) each call ``declare`` with a
:class:`PanelArea`: the area's router and how it words these operations (the paths and
operation names where the two areas differ, their request and answer models, `detail` or
`message` for an answer's text). A summary is the operation name's words (the endpoint
default). What only one area has, or answers differently (squad listings and details, node
actions, inbounds), each area's module declares itself.

Annotations are not postponed here: the handlers name the area's models
(``payload: area.squad_create``), which only exist when ``declare`` runs.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.api.endpoint import Handler
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
    MigrationPreviewResponse,
    MigrationRequest,
    NodeInfo,
    NodesListResponse,
    NodeStatisticsResponse,
    NodeUsageResponse,
    PanelStatusResponse,
    SquadActionRequest,
    SystemStatsResponse,
)

Declare = Callable[[Handler], Handler]


@dataclass(frozen=True)
class PanelArea:
    """One API area's router and its wording of the shared operations."""

    router: Router
    text: Literal["detail", "message"]
    """The field of an answer that carries its text: `detail` or `message`."""
    names: Mapping[str, str]
    """The area's operation names where the areas differ, by the shared handler's name."""
    paths: Mapping[str, str]
    """The area's paths where the areas differ, by the shared handler's name."""
    squad_create: type[BaseModel]
    squad_update: type[BaseModel]
    node_action_answer: type[BaseModel]
    operation_answer: type[BaseModel]
    migration_answer: type[BaseModel]
    descriptions: Mapping[str, str] = field(default_factory=dict)
    """Descriptions that differ from the shared handler's docstring, by operation name."""

    def route(self, method: str, path: str, *, name: str | None = None, **options: Any) -> Declare:
        """Declare a handler on the area's router, under ``name`` when given."""

        def declare(handler: Handler) -> Handler:
            if name is not None:
                handler.__name__ = name
            options.setdefault("description", self.descriptions.get(handler.__name__))
            return self.router.route(method, path, **options)(handler)

        return declare

    def get(self, path: str, **options: Any) -> Declare:
        return self.route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Declare:
        return self.route("POST", path, **options)

    def patch(self, path: str, **options: Any) -> Declare:
        return self.route("PATCH", path, **options)

    def answer(
        self, model: type[BaseModel], text: str | None, success: bool = True, **fields: Any
    ) -> BaseModel:
        """An operation's answer: ``model`` with ``text`` in the area's text field."""
        return model(success=success, **{self.text: text}, **fields)


def declare(area: PanelArea) -> None:
    """Declare every shared operation on the area's router."""
    _declare_panel(area)
    _declare_nodes(area)
    _declare_squads(area)
    _declare_migration(area)


def _declare_panel(area: PanelArea) -> None:
    @area.get("/status", response_model=PanelStatusResponse, permission=READ)
    async def get_panel_status(request: Request) -> PanelStatusResponse:
        """Whether a panel is configured and whether it answers; never fails."""
        return await service.status(panel(request))

    @area.get("/system", response_model=SystemStatsResponse, permission=READ, responses=PANEL_FAILURES)
    async def get_system_statistics(request: Request) -> SystemStatsResponse:
        """The panel's system statistics, fetched live (parts that fail are zero)."""
        return await service.system_stats(panel(request))


def _declare_nodes(area: PanelArea) -> None:
    @area.get("/nodes", response_model=NodesListResponse, permission=READ, responses=PANEL_FAILURES)
    async def list_nodes(request: Request) -> NodesListResponse:
        found = await service.nodes(panel(request))
        return NodesListResponse(items=found, total=len(found))

    @area.get(
        "/nodes/realtime",
        name=area.names["nodes_realtime"],
        response_model=list[dict[str, Any]],
        permission=READ,
        responses=PANEL_FAILURES,
    )
    async def nodes_realtime(request: Request) -> list[dict[str, Any]]:
        return await panel(request).nodes_realtime_usage()

    @area.post(
        area.paths["restart_all_nodes"],
        response_model=area.node_action_answer,
        permission=MANAGE,
        responses=PANEL_FAILURES,
    )
    async def restart_all_nodes(request: Request) -> BaseModel:
        accepted = await panel(request).restart_all_nodes()
        text = "Restart of all nodes requested" if accepted else None
        return area.answer(area.node_action_answer, text, success=accepted)

    @area.get("/nodes/{node_uuid}", response_model=NodeInfo, permission=READ, responses=NODE_RESPONSES)
    async def get_node_details(request: Request, node_uuid: str) -> NodeInfo:
        return await service.node(panel(request), node_uuid)

    @area.get(
        "/nodes/{node_uuid}/statistics",
        response_model=NodeStatisticsResponse,
        permission=READ,
        responses=NODE_RESPONSES,
    )
    async def get_node_statistics(request: Request, node_uuid: str) -> NodeStatisticsResponse:
        return await service.node_statistics(panel(request), node_uuid)

    @area.get(
        "/nodes/{node_uuid}/usage",
        name=area.names["node_usage"],
        response_model=NodeUsageResponse,
        permission=READ,
        responses=NODE_RESPONSES,
    )
    async def node_usage(
        request: Request, node_uuid: str, start: datetime | None = None, end: datetime | None = None
    ) -> NodeUsageResponse:
        """The node's traffic per user and day between `start` and `end` (default: the last week)."""
        return NodeUsageResponse(items=await service.node_usage(panel(request), node_uuid, start, end))


def _declare_squads(area: PanelArea) -> None:
    @area.post(
        "/squads",
        response_model=area.operation_answer,
        status_code=201,
        permission=MANAGE,
        responses=PANEL_FAILURES,
    )
    async def create_squad(request: Request, payload: area.squad_create) -> BaseModel:
        created = await panel(request).create_squad(payload.name, payload.inbound_uuids)
        return area.answer(area.operation_answer, "Squad created", data=service.squad_fields(created))

    @area.patch(
        "/squads/{squad_uuid}",
        response_model=area.operation_answer,
        permission=MANAGE,
        responses=SQUAD_RESPONSES,
    )
    async def update_squad(request: Request, squad_uuid: str, payload: area.squad_update) -> BaseModel:
        found = await service.update_squad(panel(request), squad_uuid, payload.name, payload.inbound_uuids)
        return area.answer(area.operation_answer, "Squad updated", data=found)

    @area.post(
        area.paths["squad_action"],
        name=area.names["squad_action"],
        response_model=area.operation_answer,
        permission=MANAGE,
        responses=SQUAD_ACTION_RESPONSES,
    )
    async def squad_action(request: Request, squad_uuid: str, payload: SquadActionRequest) -> BaseModel:
        """add_all_users, remove_all_users, delete, rename (with `name`), update_inbounds (with
        `inbound_uuids`)."""
        done = await service.squad_action(
            panel(request), squad_uuid, payload.action, payload.name, payload.inbound_uuids
        )
        return area.answer(area.operation_answer, done)


def _declare_migration(area: PanelArea) -> None:
    @area.post(
        "/squads/migrate",
        name=area.names["migrate"],
        response_model=area.migration_answer,
        permission=MANAGE,
        responses={400: local.SAME_SQUADS, **SQUAD_RESPONSES},
    )
    async def migrate(request: Request, session: AsyncSession, payload: MigrationRequest) -> BaseModel:
        """Move every subscription from the source squad to the target squad; the panel
        accounts follow through the synchronisation."""
        stats = await local.migrate(
            session, services(request.app).events, panel(request), payload.source_uuid, payload.target_uuid
        )
        return area.answer(area.migration_answer, f"Migrated {stats.updated} subscriptions", data=stats)

    @area.get(
        "/squads/{squad_uuid}/migration-preview",
        name=area.names["migration_preview"],
        response_model=MigrationPreviewResponse,
        permission=READ,
        responses=SQUAD_RESPONSES,
    )
    async def migration_preview(
        request: Request, session: AsyncSession, squad_uuid: str
    ) -> MigrationPreviewResponse:
        return await local.migration_preview(session, panel(request), squad_uuid)
