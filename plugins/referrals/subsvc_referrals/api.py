"""What other plugins may use of the referrals plugin (the rest is private).

- :func:`referral_settings` (``await referral_settings(app)``): the programme's configuration
  (:class:`ReferralConfig`: on/off, percents, tiers, minimum top-up, bonuses), the environment's
  defaults with the stored values over them, cached per instance;
  :func:`update_referral_settings` changes it (stored; every instance forgets its cache).
- :func:`earned_totals`: what each user earned (the earnings are the source of truth).
- :func:`record_earning`: an earning credited through billing (``referral_reward``) in the
  caller's transaction, once per key.
- :class:`ReferralEarning`: the ORM model, for reading.
- Extension point ``referral_commission_percent(session, user_id)`` (first answer wins): a
  referrer's individual percent.
"""

from __future__ import annotations

from subsvc_referrals.config import FIELDS as SETTING_NAMES
from subsvc_referrals.config import ReferralConfig
from subsvc_referrals.earnings import REFERRAL_REWARD, earned_totals, record_earning
from subsvc_referrals.models import COMMISSION, FIRST_TOPUP, ReferralEarning
from subsvc_referrals.store import referral_settings, update_referral_settings

__all__ = [
    "COMMISSION",
    "FIRST_TOPUP",
    "REFERRAL_REWARD",
    "SETTING_NAMES",
    "ReferralConfig",
    "ReferralEarning",
    "earned_totals",
    "record_earning",
    "referral_settings",
    "update_referral_settings",
]
