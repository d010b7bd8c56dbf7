"""Plugin `referrals`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_referrals import cabinet_routes, hooks, hookspecs, network_routes
from subsvc_referrals.models import ReferralEarning, ReferralFirstTopup, ReferralSetting
from subsvc_referrals.notices import JOBS
from subsvc_referrals.settings import ReferralSettings

plugin = Plugin(
    models=[ReferralEarning, ReferralFirstTopup, ReferralSetting],
    endpoints=[cabinet_routes.router, network_routes.router],
    settings=ReferralSettings,
    jobs=JOBS,
    hooks=[hooks],
    hookspecs=hookspecs,
)
