"""What the plugin's endpoints share: permissions, query parameters, checks of the offer terms
and the template endpoints both areas (Web API and Cabinet Admin) serve. The services'
refusals are answered as ``plugin.py`` declares them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, cast

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Query, Router
from subsvc.api.endpoint import Handler
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
PLUGIN_NAME = "promo_offers"


def settings(request: Request) -> PromoOffersSettings:
    return cast(PromoOffersSettings, request.app.state.settings_of[PLUGIN_NAME])


def check_terms(notification_type: str, effect_type: str) -> None:
    """The reference's 400s for texts that are only blanks."""
    if not notification_type.strip():
        raise HTTPError(400, "notification_type must not be empty")
    if not effect_type.strip():
        raise HTTPError(400, "effect_type must not be empty")


@dataclass(frozen=True)
class TemplateArea:
    """How an area words the template endpoints. The handlers' names make the operation ids
    (and the summaries: their words)."""

    not_found: str
    list_name: str = "list_templates"
    get_name: str = "get_template"
    update_name: str = "update_template"
    list_description: str | None = None
    """The list's description, when not the list handler's docstring."""


def declare_templates(router: Router, area: TemplateArea) -> None:
    """Declare the template endpoints (list, get, update) on the area's router."""

    async def list_templates(session: AsyncSession) -> PromoOfferTemplateListResponse:
        """Every template, by offer type."""
        items = [_template_response(template) for template in await templates.list_templates(session)]
        return PromoOfferTemplateListResponse(items=items)

    async def get_template(session: AsyncSession, template_id: int) -> PromoOfferTemplateResponse:
        # no docstring: the operation has no description
        return _template_response(await _template(session, template_id, area.not_found))

    async def update_template(
        session: AsyncSession, template_id: int, payload: PromoOfferTemplateUpdateRequest
    ) -> PromoOfferTemplateResponse:
        """Change the given fields (absent or null: unchanged)."""
        template = await _template(session, template_id, area.not_found)
        await templates.update_template(session, template, payload)
        return _template_response(template)

    router.get(
        "/templates",
        response_model=PromoOfferTemplateListResponse,
        permission=READ,
        description=area.list_description,
    )(_named(list_templates, area.list_name))
    router.get(
        "/templates/{template_id}",
        response_model=PromoOfferTemplateResponse,
        permission=READ,
        responses={404: area.not_found},
    )(_named(get_template, area.get_name))
    router.patch(
        "/templates/{template_id}",
        response_model=PromoOfferTemplateResponse,
        permission=EDIT,
        responses={400: "A blank name or text", 404: area.not_found},
    )(_named(update_template, area.update_name))


def _named(handler: Handler, name: str) -> Handler:
    handler.__name__ = name
    return handler


def _template_response(template: object) -> PromoOfferTemplateResponse:
    return PromoOfferTemplateResponse.model_validate(template)


async def _template(session: AsyncSession, template_id: int, not_found: str) -> PromoOfferTemplate:
    """The template, or 404 ``not_found`` (the areas' texts differ)."""
    template = await templates.find_template(session, template_id)
    if template is None:
        raise HTTPError(404, not_found)
    return template
