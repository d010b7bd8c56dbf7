"""Runtime hooks: new users are attributed to the campaign they arrived with, when the
account is made (``user.created``) or when its first campaign is recorded later (the
cabinet's deep-link login for an account the bot made); a registered user's gateway payment
is counted in the campaign's totals in the payment's transaction. The referrals plugin's
optional hooks (when it runs) are answered: the network's campaigns, a referee's campaign."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_cabinet_auth.api import FIRST_CAMPAIGN_RECORDED

from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_campaigns import totals
from subsvc_campaigns.attribution import on_user_created
from subsvc_campaigns.partnering import NetworkCampaignView, network_campaigns, registered_campaign


@hookimpl
async def startup(app: Starlette) -> None:
    events = services(app).events
    events.subscribe_in_transaction(totals.on_commit)
    for event_type in ("user.created", FIRST_CAMPAIGN_RECORDED):
        events.subscribe(event_type, functools.partial(on_user_created, app))


@hookimpl(optionalhook=True)
async def referral_network_campaigns(
    session: AsyncSession, campaign_ids: Sequence[int] | None
) -> list[NetworkCampaignView]:
    """The referrals plugin's network campaigns, when it runs (it is not required)."""
    return await network_campaigns(session, campaign_ids)


@hookimpl(optionalhook=True)
async def referral_user_campaign(session: AsyncSession, user_id: int) -> int | None:
    """The referrals plugin's question, when it runs: the campaign that registered the user."""
    return await registered_campaign(session, user_id)


@hookimpl
async def user_deleting(session: AsyncSession, user_id: int) -> None:
    """A registered user about to be deleted leaves the campaign's running totals."""
    await session.run_sync(totals.forget_user, user_id)
