"""Request and response models of the panel endpoints (the wire contract).

Where the Web API and the cabinet say the same thing the model is shared; where they differ
(``detail`` versus ``message``, local server fields on squads) each area has its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# --- status and system statistics ------------------------------------------------------------


class ConnectionStatus(BaseModel):
    status: str = Field(description="connected, error or not_configured")
    message: str
    api_url: str | None = None
    status_code: int | None = None
    system_info: dict[str, Any] | None = None


class PanelStatusResponse(BaseModel):
    """Whether a panel is configured and whether it answers."""

    is_configured: bool
    configuration_error: str | None = None
    connection: ConnectionStatus | None = None


class SystemSummary(BaseModel):
    users_online: int
    total_users: int
    active_connections: int
    nodes_online: int
    total_nodes: int = 0
    users_last_day: int
    users_last_week: int
    users_never_online: int
    total_user_traffic: int


class ServerInfo(BaseModel):
    cpu_cores: int
    cpu_physical_cores: int
    memory_total: int
    memory_used: int
    memory_free: int
    memory_available: int
    uptime_seconds: int


class Bandwidth(BaseModel):
    realtime_download: int
    realtime_upload: int
    realtime_total: int


class TrafficPeriod(BaseModel):
    current: int
    previous: int
    difference: str | None = None


class TrafficPeriods(BaseModel):
    last_2_days: TrafficPeriod
    last_7_days: TrafficPeriod
    last_30_days: TrafficPeriod
    current_month: TrafficPeriod
    current_year: TrafficPeriod


class SystemStatsResponse(BaseModel):
    """The panel's system statistics (see the plugin README for where each figure comes from)."""

    system: SystemSummary
    users_by_status: dict[str, int]
    server_info: ServerInfo
    bandwidth: Bandwidth
    traffic_periods: TrafficPeriods
    nodes_realtime: list[dict[str, Any]] = Field(default_factory=list)
    nodes_weekly: list[dict[str, Any]] = Field(default_factory=list)
    last_updated: datetime | None = None


# --- nodes -----------------------------------------------------------------------------------


class NodeInfo(BaseModel):
    uuid: str
    name: str
    address: str
    country_code: str | None = None
    is_connected: bool
    is_disabled: bool
    is_node_online: bool
    is_xray_running: bool
    users_online: int | None = None
    traffic_used_bytes: int | None = None
    traffic_limit_bytes: int | None = None
    last_status_change: datetime | None = None
    last_status_message: str | None = None
    xray_uptime: str | None = None
    is_traffic_tracking_active: bool = False
    traffic_reset_day: int | None = None
    notify_percent: int | None = None
    consumption_multiplier: float = 1.0
    cpu_count: int | None = None
    cpu_model: str | None = None
    total_ram: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    provider_uuid: str | None = None
    provider_name: str | None = Field(None, description="The node's infrastructure provider")
    provider_favicon: str | None = Field(None, description="The provider's favicon link")
    versions: dict[str, str] | None = Field(None, description="Software on the node: xray, node")
    system: dict[str, Any] | None = Field(None, description="The node's host: info and live stats")
    active_plugin_uuid: str | None = Field(None, description="The node plugin the node runs")
    ips: list[dict[str, Any]] = Field(default_factory=list, description="The node's addresses: ip, status")


class NodesListResponse(BaseModel):
    items: list[NodeInfo]
    total: int


class NodesOverview(BaseModel):
    total: int
    online: int
    offline: int
    disabled: int
    total_users_online: int
    nodes: list[NodeInfo]


class NodeUserUsage(BaseModel):
    """A user's traffic on a node over a window: the panel's user (its numeric id, when the
    panel gives it, and name) and the bytes in all."""

    user_id: int | None = None
    username: str | None = None
    node_uuid: str | None = None
    total_bytes: int = 0


class NodeStatisticsResponse(BaseModel):
    """The node, its realtime figures and its users' traffic over the last week."""

    node: NodeInfo
    realtime: dict[str, Any] | None = None
    usage_history: list[NodeUserUsage] = Field(default_factory=list)
    last_updated: datetime | None = None


class NodeUsageResponse(BaseModel):
    items: list[NodeUserUsage] = Field(default_factory=list)


class RestartAllNodesPayload(BaseModel):
    """``force_restart``: restart every node's core even where nothing changed."""

    force_restart: bool = False


class NodeActionRequest(BaseModel):
    action: Literal["enable", "disable", "restart"]


class WebNodeActionResponse(BaseModel):
    success: bool
    detail: str | None = None


class NodeActionResponse(BaseModel):
    success: bool
    message: str | None = None
    is_disabled: bool | None = None


# --- squads and inbounds ---------------------------------------------------------------------


class WebSquad(BaseModel):
    uuid: str
    name: str
    members_count: int
    inbounds_count: int
    inbounds: list[dict[str, Any]] = Field(default_factory=list)


class WebSquadListResponse(BaseModel):
    items: list[WebSquad]
    total: int


class SquadWithLocalInfo(WebSquad):
    """A panel squad and what the servers plugin keeps about it (``None`` when nothing)."""

    local_id: int | None = None
    display_name: str | None = None
    country_code: str | None = None
    is_available: bool | None = None
    is_trial_eligible: bool | None = None
    price_kopeks: int | None = None
    max_users: int | None = None
    current_users: int | None = None
    is_synced: bool = False


class SquadsListResponse(BaseModel):
    items: list[SquadWithLocalInfo]
    total: int


class SquadDetailResponse(SquadWithLocalInfo):
    description: str | None = None
    sort_order: int | None = None
    active_subscriptions: int = 0


class WebSquadCreateRequest(BaseModel):
    name: str
    inbound_uuids: list[str] = Field(default_factory=list)


class SquadCreateRequest(BaseModel):
    name: str = Field(min_length=1, max_length=255)
    inbound_uuids: list[str] = Field(default_factory=list)


class WebSquadUpdateRequest(BaseModel):
    name: str | None = None
    inbound_uuids: list[str] | None = None


class SquadUpdateRequest(BaseModel):
    name: str | None = Field(None, min_length=1, max_length=255)
    inbound_uuids: list[str] | None = None


SquadAction = Literal["add_all_users", "remove_all_users", "delete", "rename", "update_inbounds"]


class SquadActionRequest(BaseModel):
    action: SquadAction
    name: str | None = None
    inbound_uuids: list[str] | None = None


class WebOperationResponse(BaseModel):
    success: bool
    detail: str | None = None
    data: dict[str, Any] | None = None


class SquadOperationResponse(BaseModel):
    success: bool
    message: str | None = None
    data: dict[str, Any] | None = None


class MigrationPreviewResponse(BaseModel):
    squad_uuid: str
    squad_name: str
    current_users: int
    max_users: int | None = None
    users_to_migrate: int


class MigrationRequest(BaseModel):
    source_uuid: str
    target_uuid: str


class MigrationStats(BaseModel):
    source_uuid: str
    target_uuid: str
    total: int = 0
    updated: int = 0
    panel_updated: int = 0
    panel_failed: int = 0
    source_removed: int = 0
    target_added: int = 0


class WebMigrationResponse(BaseModel):
    success: bool
    detail: str | None = None
    error: str | None = None
    data: MigrationStats | None = None


class MigrationResponse(BaseModel):
    success: bool
    message: str | None = None
    error: str | None = None
    data: MigrationStats | None = None


class WebInboundsResponse(BaseModel):
    items: list[dict[str, Any]] = Field(default_factory=list)


class InboundsListResponse(BaseModel):
    items: list[dict[str, Any]] = Field(default_factory=list)
    total: int = 0


class UserTrafficResponse(BaseModel):
    messenger_id: int | None = None
    used_traffic_bytes: int
    used_traffic_gb: float
    lifetime_used_traffic_bytes: int
    lifetime_used_traffic_gb: float
    traffic_limit_bytes: int
    traffic_limit_gb: float
    subscription_url: str | None = None


# --- admin traffic ---------------------------------------------------------------------------


class SubscriptionTrafficInfo(BaseModel):
    """Per-subscription traffic metadata for multi-subscription display."""

    subscription_id: int
    tariff_name: str | None
    status: str | None
    traffic_limit_gb: float
    device_limit: int


class SubscriptionEnrichmentInfo(BaseModel):
    """Per-subscription enrichment (dates) for multi-subscription display."""

    subscription_id: int
    tariff_name: str | None
    start_date: str | None
    end_date: str | None


class UserTrafficItem(BaseModel):
    """A user's line; the subscription fields are the current subscription's, ``subscriptions``
    lists every one the user holds (the current first)."""

    user_id: int
    messenger_id: int | None
    username: str | None
    email: str | None
    full_name: str
    tariff_name: str | None
    subscription_status: str | None
    traffic_limit_gb: float
    device_limit: int
    node_traffic: dict[str, int]
    total_bytes: int
    subscriptions: list[SubscriptionTrafficInfo] = Field(default_factory=list)


class TrafficNodeInfo(BaseModel):
    node_uuid: str
    node_name: str
    country_code: str


class TrafficUsageResponse(BaseModel):
    items: list[UserTrafficItem]
    nodes: list[TrafficNodeInfo]
    total: int
    offset: int
    limit: int
    period_days: int
    available_tariffs: list[str]
    available_statuses: list[str]


class UserTrafficEnrichment(BaseModel):
    devices_connected: int = 0
    total_spent_kopeks: int = 0
    subscription_start_date: str | None = None
    subscription_end_date: str | None = None
    last_node_name: str | None = None
    subscriptions: list[SubscriptionEnrichmentInfo] = Field(default_factory=list)


class TrafficEnrichmentResponse(BaseModel):
    data: dict[str, UserTrafficEnrichment]


class ExportCsvRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    period: int = Field(30, ge=1, le=30)
    start_date: str | None = None
    end_date: str | None = None
    tariffs: str | None = None
    statuses: str | None = None
    nodes: str | None = None
    total_threshold_gb: float | None = Field(None, ge=0, description="Total GB/day threshold for risk column")
    node_threshold_gb: float | None = Field(
        None, ge=0, description="Per-node GB/day threshold for risk column"
    )


class ExportCsvResponse(BaseModel):
    success: bool
    message: str


# --- panel health, recap, devices, top consumers, subscription requests, geo-check -------------


class HealthResponse(BaseModel):
    """The panel's processes: how many, their memory added up, the worst event-loop lag, the
    longest uptime, and the first one's id."""

    instances: int = 0
    rss_bytes: int = 0
    heap_used_bytes: int = 0
    heap_total_bytes: int = 0
    event_loop_delay_ms: float = 0
    event_loop_p99_ms: float = 0
    uptime_seconds: int = 0
    instance_id: str | None = None


class RecapTotal(BaseModel):
    users: int = 0
    nodes: int = 0
    traffic_bytes: int = 0
    nodes_ram_bytes: int = 0
    nodes_cpu_cores: int = 0
    distinct_countries: int = 0


class RecapThisMonth(BaseModel):
    users: int = 0
    traffic_bytes: int = 0


class RecapResponse(BaseModel):
    """The panel's recap: version, first start, lifetime and this month's figures."""

    version: str | None = None
    init_date: str | None = None
    total: RecapTotal = Field(default_factory=RecapTotal)
    this_month: RecapThisMonth = Field(default_factory=RecapThisMonth)


class PlatformCount(BaseModel):
    platform: str
    count: int


class AppCount(BaseModel):
    app: str
    count: int


class DeviceTopUser(BaseModel):
    username: str
    devices_count: int


class DevicesStatsResponse(BaseModel):
    """The users' devices (HWID) by platform and by app, the users with the most, totals."""

    by_platform: list[PlatformCount] = Field(default_factory=list)
    by_app: list[AppCount] = Field(default_factory=list)
    top_users: list[DeviceTopUser] = Field(default_factory=list)
    total_unique_devices: int = 0
    total_hwid_devices: int = 0
    average_devices_per_user: float = 0


class TopConsumer(BaseModel):
    username: str
    total_bytes: int


class TopConsumersResponse(BaseModel):
    """The panel users who used the most traffic over ``period_days``, on all nodes."""

    period_days: int = 7
    users: list[TopConsumer] = Field(default_factory=list)


class SubscriptionRequestStatsResponse(BaseModel):
    """Subscription-link requests by client app."""

    by_app: list[AppCount] = Field(default_factory=list)


class GeocheckRequest(BaseModel):
    """Optional: the address and the network interface of the node to check from."""

    ip: str | None = Field(None, max_length=64)
    interface: str | None = Field(None, max_length=64)


class GeocheckStartResponse(BaseModel):
    job_id: str


class GeocheckImage(BaseModel):
    format: str
    media_type: str
    encoding: str
    data: str


class GeocheckResult(BaseModel):
    success: bool
    node_uuid: str | None = None
    image: GeocheckImage | None = None
    raw_report: dict[str, Any] | None = None
    message: str | None = None


class GeocheckJobResponse(BaseModel):
    """A geo-check job: running (neither completed nor failed), completed with its result, or
    failed (the result says why when the panel does)."""

    job_id: str
    is_completed: bool
    is_failed: bool
    result: GeocheckResult | None = None
