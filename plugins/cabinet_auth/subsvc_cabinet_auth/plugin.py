"""Plugin `cabinet_auth`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_cabinet_auth import guard, hooks, merging
from subsvc_cabinet_auth.campaigns import FIRST_CAMPAIGN_RECORDED, FirstCampaignRecorded
from subsvc_cabinet_auth.models import CabinetRefreshToken, DeepLinkToken, FirstCampaign, UsedCredential
from subsvc_cabinet_auth.routes import cabinet, public, web
from subsvc_cabinet_auth.settings import CabinetAuthSettings

plugin = Plugin(
    models=[CabinetRefreshToken, UsedCredential, DeepLinkToken, FirstCampaign],
    endpoints=[cabinet.router, web.router, public.router],
    tags={
        "Cabinet Auth": "Cabinet logins, sessions (JWT), the caller's standing.",
        "cabinet-auth": "The bot's side of the cabinet's deep-link login.",
    },
    settings=CabinetAuthSettings,
    auth_responses={
        area: {403: f"{guard.NOT_ACTIVE}, or deleted", 404: guard.USER_NOT_FOUND}
        for area in ("cabinet", "cabinet-admin")
    },
    events={FIRST_CAMPAIGN_RECORDED: FirstCampaignRecorded},
    hooks=[hooks, merging],
)
