"""Wire shapes of the administrators' referral network."""

from __future__ import annotations

from pydantic import BaseModel


class TopReferrer(BaseModel):
    user_id: int
    username: str | None
    referral_count: int


class NetworkUserNode(BaseModel):
    id: int
    tg_id: int | None
    username: str | None
    email: str | None
    display_name: str
    is_partner: bool
    referrer_id: int | None
    campaign_id: int | None
    direct_referrals: int
    total_branch_users: int
    branch_revenue_kopeks: int
    personal_revenue_kopeks: int
    personal_spent_kopeks: int
    subscription_name: str | None
    subscription_end: str | None
    subscription_status: str | None
    registered_at: str | None


class NetworkUserDetail(NetworkUserNode):
    referrer_display_name: str | None
    campaign_name: str | None


class NetworkCampaignNode(BaseModel):
    id: int
    name: str
    start_parameter: str
    is_active: bool
    direct_users: int
    total_network_users: int
    total_revenue_kopeks: int
    conversion_rate: float
    avg_check_kopeks: int
    top_referrers: list[TopReferrer]


class NetworkCampaignDetail(NetworkCampaignNode):
    pass


class NetworkEdge(BaseModel):
    source: str
    target: str
    type: str


class NetworkGraphResponse(BaseModel):
    users: list[NetworkUserNode]
    campaigns: list[NetworkCampaignNode]
    edges: list[NetworkEdge]
    total_users: int
    total_referrers: int
    total_campaigns: int
    total_earnings_kopeks: int
    total_subscription_revenue_kopeks: int


class CampaignOption(BaseModel):
    id: int
    name: str
    start_parameter: str
    is_active: bool
    direct_users: int


class PartnerOption(BaseModel):
    id: int
    display_name: str
    username: str | None
    campaign_count: int


class ScopeOptionsResponse(BaseModel):
    campaigns: list[CampaignOption]
    partners: list[PartnerOption]


class NetworkSearchResult(BaseModel):
    users: list[NetworkUserNode]
    campaigns: list[NetworkCampaignNode]
