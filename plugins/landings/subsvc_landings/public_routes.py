"""Landing pages for guests: `/cabinet/landing/...` (tag Landing Pages, no sign-in; per-IP
rate limits through core's limiter, which fails closed)."""

from __future__ import annotations

from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import HTTPError, Path, Query, Router
from subsvc.ratelimit import RATE_LIMITED, rate_limit
from subsvc.services import services
from subsvc_landings import claims, pages, purchases
from subsvc_landings.config_view import public_view
from subsvc_landings.models import DELIVERED
from subsvc_landings.schemas import (
    GiftClaimRequest,
    GiftClaimResponse,
    LandingConfigResponse,
    PurchaseRequest,
    PurchaseResponse,
    PurchaseStatusResponse,
)

public = Router(area="cabinet", tag="Landing Pages")
BASE = "/cabinet/landing"
PURCHASE_LIMITED = "Too many purchase attempts, please try again later"
Lang = Annotated[str, Query(max_length=5, description="Locale: ru, en, zh, fa")]
NOT_ACTIVATABLE = "Purchase is not pending activation"


@public.get(f"{BASE}/purchase/{{token}}", public=True, responses={404: claims.NOT_FOUND, **RATE_LIMITED})
async def get_purchase_status(request: Request, token: str) -> PurchaseStatusResponse:
    """A purchase's status by its token; a new account's password is shown in the first answer
    after delivery only."""
    await rate_limit(request, "landing_status", "30/minute")
    async with services(request.app).db.session() as session:
        shown = await claims.reveal(request.app, session, token)
        await session.commit()
    if shown is None:
        raise HTTPError(404, claims.NOT_FOUND)
    return shown


@public.post(
    f"{BASE}/activate/{{token}}",
    public=True,
    responses={400: NOT_ACTIVATABLE, 404: claims.NOT_FOUND, **RATE_LIMITED},
)
async def activate_purchase(request: Request, session: AsyncSession, token: str) -> PurchaseStatusResponse:
    """Purchases are delivered once paid (a gift through its claim): a delivered one answers as
    it is, any other is not pending activation."""
    await rate_limit(request, "landing_activate", "30/minute")
    purchase = await claims.find(session, token)
    if purchase is None:
        raise HTTPError(404, claims.NOT_FOUND)
    if purchase.status != DELIVERED:
        raise HTTPError(400, NOT_ACTIVATABLE)
    return claims.status_of(purchase)


@public.get(f"{BASE}/gift/{{token}}", public=True, responses={404: claims.GIFT_NOT_FOUND, **RATE_LIMITED})
async def get_gift_claim(request: Request, session: AsyncSession, token: str) -> PurchaseStatusResponse:
    """A gift as its recipient sees it: claimable once paid and until claimed; its links go to
    the claimer only."""
    await rate_limit(request, "landing_gift", "30/minute")
    purchase = await claims.find(session, token)
    if purchase is None or not purchase.is_gift:
        raise HTTPError(404, claims.GIFT_NOT_FOUND)
    return claims.gift_view(purchase)


@public.post(
    f"{BASE}/gift/{{token}}/claim",
    public=True,
    responses={
        400: f"{claims.NOT_CLAIMABLE} or Invalid email format",
        404: claims.GIFT_NOT_FOUND,
        409: claims.ALREADY_CLAIMED,
        **RATE_LIMITED,
    },
)
async def claim_gift(
    request: Request, session: AsyncSession, token: str, payload: GiftClaimRequest
) -> GiftClaimResponse:
    """Claim a paid gift for the account of an e-mail (made when new); once only."""
    await rate_limit(request, "landing_claim", "10/minute")
    try:
        return await claims.claim(request.app, session, token, payload.email)
    except purchases.Refused as refused:
        raise HTTPError(refused.status, refused.detail) from None


@public.get(f"{BASE}/{{slug}}", public=True, responses={404: pages.NOT_FOUND, **RATE_LIMITED})
async def get_landing_config(
    request: Request, session: AsyncSession, slug: Annotated[str, Path(max_length=100)], lang: Lang = "ru"
) -> LandingConfigResponse:
    """An active landing page in a language: texts, tariffs with prices, payment methods."""
    await rate_limit(request, "landing_view", "60/minute")
    page = await pages.by_slug(session, slug)
    if page is None:
        raise HTTPError(404, pages.NOT_FOUND)
    return await public_view(request.app, session, page, lang)


@public.post(
    f"{BASE}/{{slug}}/purchase",
    public=True,
    responses={
        400: "Gift purchases are not enabled for this landing page, Payment method is not available on this "
        "landing page, Tariff is not available on this landing page, ...",
        404: pages.NOT_FOUND,
        429: PURCHASE_LIMITED,
        502: purchases.PROVIDER_DOWN,
    },
)
async def create_landing_purchase(
    request: Request, session: AsyncSession, slug: str, payload: PurchaseRequest
) -> PurchaseResponse:
    """Buy from a landing page without signing in: a pending purchase and its provider payment
    (the subscription is delivered once paid)."""
    try:
        await rate_limit(request, "landing_purchase", "30/minute")
    except HTTPError as limited:
        if limited.status_code != 429:
            raise
        raise HTTPError(429, PURCHASE_LIMITED, limited.headers) from None
    page = await pages.by_slug(session, slug)
    if page is None:
        raise HTTPError(404, pages.NOT_FOUND)
    try:
        token, url = await purchases.create_purchase(request.app, session, page, payload)
    except purchases.Refused as refused:
        raise HTTPError(refused.status, refused.detail) from None
    return PurchaseResponse(purchase_token=token, payment_url=url)
