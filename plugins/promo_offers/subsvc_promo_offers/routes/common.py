"""What the plugin's endpoints share: permissions, error texts, checks of the offer terms."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError
from subsvc_promo_offers import templates
from subsvc_promo_offers.recipients import RecipientError
from subsvc_promo_offers.schemas import (
    PromoOfferTemplateListResponse,
    PromoOfferTemplateResponse,
    PromoOfferTemplateUpdateRequest,
)
from subsvc_promo_offers.settings import PromoOffersSettings
from subsvc_promo_offers.templates import TemplateRuleError

READ = "promo_offers:read"
CREATE = "promo_offers:create"
EDIT = "promo_offers:edit"
SEND = "promo_offers:send"
PLUGIN_NAME = "promo_offers"


def settings(request: Request) -> PromoOffersSettings:
    return cast(PromoOffersSettings, request.app.state.settings_of[PLUGIN_NAME])


def check_terms(notification_type: str, effect_type: str) -> None:
    """The reference's 400s for texts that are only blanks."""
    if not notification_type.strip():
        raise HTTPError(400, "notification_type must not be empty")
    if not effect_type.strip():
        raise HTTPError(400, "effect_type must not be empty")


@contextmanager
def answers() -> Iterator[None]:
    """The services' refusals as HTTP errors."""
    try:
        yield
    except RecipientError as refused:
        raise HTTPError(refused.status, refused.detail) from None
    except TemplateRuleError as refused:
        raise HTTPError(400, str(refused)) from None


def template_response(template: object) -> PromoOfferTemplateResponse:
    return PromoOfferTemplateResponse.model_validate(template)


async def all_templates(session: AsyncSession) -> PromoOfferTemplateListResponse:
    """Every template, by offer type."""
    items = [template_response(template) for template in await templates.list_templates(session)]
    return PromoOfferTemplateListResponse(items=items)


async def one_template(session: AsyncSession, template_id: int, not_found: str) -> PromoOfferTemplateResponse:
    """The template, or 404 ``not_found`` (the areas' texts differ)."""
    template = await templates.find_template(session, template_id)
    if template is None:
        raise HTTPError(404, not_found)
    return template_response(template)


async def change_template(
    session: AsyncSession, template_id: int, payload: PromoOfferTemplateUpdateRequest, not_found: str
) -> PromoOfferTemplateResponse:
    """Change the template's given fields; 404 ``not_found``, 400 for a blank text."""
    template = await templates.find_template(session, template_id)
    if template is None:
        raise HTTPError(404, not_found)
    with answers():
        await templates.update_template(session, template, payload)
    return template_response(template)
