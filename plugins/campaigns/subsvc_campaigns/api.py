"""What other plugins may use of the campaigns plugin (the rest is private).

- :func:`attribute` registers a user in an active campaign by its start parameter and grants
  the bonus once, in the caller's transaction (a landing's guest purchase, a bot start).
- :class:`Campaign` and :class:`CampaignRegistration`, the ORM models, for reading and
  joining (one registration per user); only this plugin writes them.
- :func:`set_campaign_partner` assigns or unassigns a campaign's partner conditionally
  (``None``: no such campaign, ``False``: another partner has it); :func:`unassign_partner`
  frees every campaign of a partner; :func:`partner_campaigns` lists a partner's campaigns
  (:class:`PartnerCampaign`, registrations counted); :func:`campaign_user_ids` the users a
  campaign registered.
- :class:`DailyStatItem`, :class:`PeriodStats`, :class:`PeriodChange`, :class:`PeriodComparison`
  and :class:`CampaignReferralItem`, the wire shapes of a campaign's chart (a partner's campaign
  statistics answer with the same); ``PeriodComparison.of`` compares two periods.
"""

from __future__ import annotations

from subsvc_campaigns.attribution import attribute
from subsvc_campaigns.models import Campaign, CampaignRegistration
from subsvc_campaigns.partnering import (
    PartnerCampaign,
    campaign_user_ids,
    partner_campaigns,
    set_campaign_partner,
    unassign_partner,
)
from subsvc_campaigns.schemas import (
    CampaignReferralItem,
    DailyStatItem,
    PeriodChange,
    PeriodComparison,
    PeriodStats,
)

__all__ = [
    "Campaign",
    "CampaignReferralItem",
    "CampaignRegistration",
    "DailyStatItem",
    "PartnerCampaign",
    "PeriodChange",
    "PeriodComparison",
    "PeriodStats",
    "attribute",
    "campaign_user_ids",
    "partner_campaigns",
    "set_campaign_partner",
    "unassign_partner",
]
