"""Plugin `campaigns`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_campaigns import admin_routes, hooks, hookspecs, web_routes
from subsvc_campaigns.models import (
    Campaign,
    CampaignDay,
    CampaignPayer,
    CampaignPayment,
    CampaignRegistration,
    CampaignTotals,
)
from subsvc_campaigns.settings import CampaignsSettings

plugin = Plugin(
    models=[Campaign, CampaignRegistration, CampaignTotals, CampaignDay, CampaignPayment, CampaignPayer],
    endpoints=[web_routes.router, admin_routes.router],
    permissions={"campaigns": ["read", "create", "edit", "delete", "stats"]},
    tags={
        "campaigns": "Advertising deep-link campaigns: a bonus for the users who arrive through one.",
        "Cabinet Admin Campaigns": "The cabinet's campaigns: editor, statistics, registrations.",
    },
    settings=CampaignsSettings,
    hooks=[hooks],
    hookspecs=hookspecs,
)
