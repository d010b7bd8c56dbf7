"""What the plugin's endpoints share: permissions, query parameters, checks of the offer terms
and the template endpoints both areas (Web API and Cabinet Admin) serve. The services'
refusals are answered as ``plugin.py`` declares them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Query, Router, operation
from subsvc.auth.principal import Principal
from subsvc_promo_offers import templates
from subsvc_promo_offers.models import PromoOfferTemplate
from subsvc_promo_offers.schemas import (
    PromoOfferTemplateListResponse,
    PromoOfferTemplateResponse,
    PromoOfferTemplateUpdateRequest,
)
from subsvc_promo_offers.settings import PromoOffersSettings

PositiveId = Annotated[int | None, Query(ge=1)]
Text = Annotated[str | None, Query(min_length=1)]
READ = "promo_offers:read"
CREATE = "promo_offers:create"
EDIT = "promo_offers:edit"
SEND = "promo_offers:send"


def settings(request: Request) -> PromoOffersSettings:
    return PromoOffersSettings.of(request.app)


def check_terms(notification_type: str, effect_type: str) -> None:
    """The reference's 400s for texts that are only blanks."""
    if not notification_type.strip():
        raise HTTPError(400, "notification_type must not be empty")
    if not effect_type.strip():
        raise HTTPError(400, "effect_type must not be empty")


TEMPLATE_NOT_FOUND = {"api_token": "Promo offer template not found", "user": "Template not found"}
"""The template 404's text in each area, by its credential: the Web API's, the Cabinet Admin's."""
BLANK = "A blank name or text"


@operation("GET", "/templates", permission=READ)
async def list_templates(session: AsyncSession) -> PromoOfferTemplateListResponse:
    """Every template, by offer type."""
    items = [_template_response(template) for template in await templates.list_templates(session)]
    return PromoOfferTemplateListResponse(items=items)


@operation("GET", "/templates/{template_id}", permission=READ)
async def get_template(
    session: AsyncSession, principal: Principal, template_id: int
) -> PromoOfferTemplateResponse:
    # no docstring: the operation has no description
    return _template_response(await _template(session, principal, template_id))


@operation("PATCH", "/templates/{template_id}", permission=EDIT)
async def update_template(
    session: AsyncSession, principal: Principal, template_id: int, payload: PromoOfferTemplateUpdateRequest
) -> PromoOfferTemplateResponse:
    """Change the given fields (absent or null: unchanged)."""
    template = await _template(session, principal, template_id)
    await templates.update_template(session, template, payload)
    return _template_response(template)


def mount_templates(
    router: Router, credential: str, names: Sequence[str], list_description: str | None
) -> None:
    """Serve the template operations (list, get, update) in the area of ``router``, whose
    callers hold ``credential``; ``names`` make the operation ids (and the summaries)."""
    not_found = TEMPLATE_NOT_FOUND[credential]
    list_name, get_name, update_name = names
    router.mount(list_templates, name=list_name, description=list_description)
    router.mount(get_template, name=get_name, responses={404: not_found})
    router.mount(update_template, name=update_name, responses={400: BLANK, 404: not_found})


def _template_response(template: object) -> PromoOfferTemplateResponse:
    return PromoOfferTemplateResponse.model_validate(template)


async def _template(session: AsyncSession, principal: Principal, template_id: int) -> PromoOfferTemplate:
    """The template, or 404 in the words of the caller's area."""
    template = await templates.find_template(session, template_id)
    if template is None:
        raise HTTPError(404, TEMPLATE_NOT_FOUND[principal.kind])
    return template
