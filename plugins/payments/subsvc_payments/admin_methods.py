"""`/cabinet/admin/payment-methods` (tag Cabinet Admin Payment Methods, permissions
``payment_methods:read|edit``): the methods' configuration. rbac audits every call."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc_payments import method_configs
from subsvc_payments.admin_schemas import (
    PaymentMethodConfigResponse,
    PaymentMethodConfigUpdateRequest,
    PromoGroupSimple,
    SortOrderRequest,
    SubOptionInfo,
)
from subsvc_payments.methods import Method

router = Router(
    area="cabinet-admin", tag="Cabinet Admin Payment Methods", prefix="/cabinet/admin/payment-methods"
)
READ, EDIT = "payment_methods:read", "payment_methods:edit"
NOT_FOUND = {404: "Payment method not found: {method_id}"}
REFUSED = "Also for what the service refuses: min above max, unknown sub-options or promo groups"


def config_response(method: Method) -> PaymentMethodConfigResponse:
    """The method's configuration beside the provider's defaults."""
    config = method.config
    low, high = method.default_limits
    options = method.available_options
    return PaymentMethodConfigResponse(
        method_id=method.id,
        sort_order=config.sort_order if config else method.position,
        is_enabled=method.enabled,
        display_name=config.display_name if config else None,
        default_display_name=method.default_name,
        description=config.description if config else None,
        default_description=None if method.info is None else method.info.description,
        sub_options=config.sub_options if config else None,
        available_sub_options=None
        if options is None
        else [SubOptionInfo(id=str(o.get("id")), name=str(o.get("name", o.get("id")))) for o in options],
        quick_amounts=config.quick_amounts if config else None,
        default_quick_amounts=method.default_quick_amounts,
        min_amount_kopeks=config.min_amount_kopeks if config else None,
        max_amount_kopeks=config.max_amount_kopeks if config else None,
        default_min_amount_kopeks=low,
        default_max_amount_kopeks=high,
        user_type_filter=config.user_type_filter if config else "all",
        first_topup_filter=config.first_topup_filter if config else "any",
        promo_group_filter_mode=config.promo_group_filter_mode if config else "all",
        allowed_promo_group_ids=sorted(method.allowed_groups),
        open_url_direct=method.open_url_direct,
        is_provider_configured=method.info is not None,
        created_at=config.created_at if config else None,
        updated_at=config.updated_at if config else None,
    )


@router.get("", permission=READ)
async def list_payment_methods(request: Request, session: AsyncSession) -> list[PaymentMethodConfigResponse]:
    """Every payment method in the cabinet's order: those the provider plugins offer now and
    those configured before (`is_provider_configured` false while their provider is not
    configured: its defaults are then unknown, the id and 0)."""
    return [config_response(method) for method in await method_configs.listed(request.app, session)]


@router.get("/promo-groups", permission=READ)
async def list_promo_groups(session: AsyncSession) -> list[PromoGroupSimple]:
    """The promo groups a method can be limited to."""
    groups = await method_configs.promo_groups(session)
    return [PromoGroupSimple(id=group.id or 0, name=group.name) for group in groups]


@router.put("/order", permission=EDIT)
async def update_payment_methods_order(
    request: Request, session: AsyncSession, payload: SortOrderRequest
) -> list[PaymentMethodConfigResponse]:
    """The listed methods first, in this order, the others after them as they were; answers
    the methods in their new order. 422 for an unknown or repeated id."""
    return [
        config_response(m) for m in await method_configs.reorder(request.app, session, payload.method_ids)
    ]


@router.get("/{method_id}", permission=READ, responses=NOT_FOUND)
async def get_payment_method(
    request: Request, session: AsyncSession, method_id: str
) -> PaymentMethodConfigResponse:
    """One method's configuration."""
    return config_response(await method_configs.one(request.app, session, method_id))


@router.put("/{method_id}", permission=EDIT, responses={**NOT_FOUND, 422: REFUSED})
async def update_payment_method(
    request: Request, session: AsyncSession, method_id: str, payload: PaymentMethodConfigUpdateRequest
) -> PaymentMethodConfigResponse:
    """Change a method's configuration: the fields given; `null` or a `reset_*` flag puts an
    override back to the provider's default; `allowed_promo_group_ids` replaces the set."""
    return config_response(await method_configs.update(request.app, session, method_id, payload))
