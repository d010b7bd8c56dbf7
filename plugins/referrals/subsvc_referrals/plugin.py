"""Plugin `referrals`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_referrals import hooks, hookspecs
from subsvc_referrals.models import ReferralEarning, ReferralFirstTopup, ReferralSetting
from subsvc_referrals.notices import JOBS
from subsvc_referrals.settings import ReferralSettings

plugin = Plugin(
    models=[ReferralEarning, ReferralFirstTopup, ReferralSetting],
    endpoints=[],
    settings=ReferralSettings,
    jobs=JOBS,
    hooks=[hooks],
    hookspecs=hookspecs,
)
