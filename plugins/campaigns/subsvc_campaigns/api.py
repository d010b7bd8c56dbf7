"""What other plugins may use of the campaigns plugin (the rest is private).

- :func:`attribute` registers a user in an active campaign by its start parameter and grants
  the bonus once, in the caller's transaction (a landing's guest purchase, a bot start).
- :class:`Campaign` and :class:`CampaignRegistration`, the ORM models, for reading and
  joining (one registration per user); only this plugin writes them.
"""

from __future__ import annotations

from subsvc_campaigns.attribution import attribute
from subsvc_campaigns.models import Campaign, CampaignRegistration

__all__ = ["Campaign", "CampaignRegistration", "attribute"]
