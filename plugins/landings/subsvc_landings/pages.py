"""Landing pages: the admin's writes and the reads both sides share."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import fits_int32
from subsvc.db import utcnow
from subsvc_landings.models import STATUSES, GuestPurchase, LandingPage
from subsvc_landings.schemas import LandingDetailResponse, LandingListItem, PurchaseStats

RESERVED = frozenset(
    {"purchase", "gift", "success", "admin", "api", "health", "static", "assets", "favicon", "robots",
     "sitemap", "activate", "buy", "login", "cabinet"}
)  # fmt: skip
COLUMNS = ("slug", "is_active", "gift_enabled")
# Fields a page always has: a null sent in an update leaves them as they are.
REQUIRED = frozenset(
    {"title", "features", "allowed_tariff_ids", "allowed_periods", "payment_methods", "sticky_pay_button",
     "analytics_view_enabled", "analytics_click_enabled"}
)  # fmt: skip
NOT_FOUND = "Landing page not found"
BAD_WINDOW = "discount_starts_at must be before discount_ends_at"


class LandingRefused(Exception):
    """A landing write the rules refuse (answered 400 with this text)."""


def reserved_text(slug: str) -> str:
    return f'Slug "{slug}" is reserved and cannot be used'


def taken_text(slug: str) -> str:
    return f'Landing page with slug "{slug}" already exists'


async def get_landing(session: AsyncSession, landing_id: int) -> LandingPage | None:
    return await session.get(LandingPage, landing_id) if fits_int32(landing_id) else None


def moment(text: str | None) -> datetime | None:
    """A stored instant (ISO text); one without a zone is UTC."""
    if text is None:
        return None
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


async def by_slug(session: AsyncSession, slug: str) -> LandingPage | None:
    """The active landing page of that slug."""
    query = select(LandingPage).where(col(LandingPage.slug) == slug, col(LandingPage.is_active))
    return (await session.exec(query)).first()


def _window(config: dict[str, Any]) -> None:
    starts, ends = moment(config.get("discount_starts_at")), moment(config.get("discount_ends_at"))
    if starts is not None and ends is not None and starts >= ends:
        raise LandingRefused(BAD_WINDOW)


async def _save(session: AsyncSession, page: LandingPage) -> LandingPage:
    if page.slug in RESERVED:
        raise LandingRefused(reserved_text(page.slug))
    try:
        async with session.begin_nested():
            session.add(page)
            await session.flush()
    except IntegrityError:
        raise LandingRefused(taken_text(page.slug)) from None
    await session.refresh(page)
    return page


def _stored(values: dict[str, Any]) -> dict[str, Any]:
    """The request's values as the JSON config keeps them (datetimes as ISO text)."""
    return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in values.items() if k not in COLUMNS}


async def create_landing(session: AsyncSession, values: dict[str, Any]) -> LandingPage:
    """A new page, last in the order. Raises :class:`LandingRefused`."""
    _window(values)
    last = (await session.exec(select(func.max(col(LandingPage.display_order))))).one()
    page = LandingPage(
        slug=values["slug"],
        is_active=values["is_active"],
        gift_enabled=values["gift_enabled"],
        display_order=(last or 0) + 1,
        config=_stored(values),
    )
    return await _save(session, page)


async def update_landing(session: AsyncSession, page: LandingPage, values: dict[str, Any]) -> LandingPage:
    """Change the fields sent (a null leaves a required field as it is). Raises
    :class:`LandingRefused`."""
    for name in COLUMNS:
        if values.get(name) is not None:
            setattr(page, name, values[name])
    sent = {k: v for k, v in values.items() if v is not None or k not in REQUIRED}
    config = {**page.config, **_stored(sent)}
    _window(config)
    page.config = config
    page.updated_at = utcnow()
    return await _save(session, page)


async def reorder(session: AsyncSession, landing_ids: list[int]) -> None:
    """The listed pages take the order of the list (unknown ids are skipped)."""
    for position, landing_id in enumerate(landing_ids):
        page = await get_landing(session, landing_id)
        if page is not None:
            page.display_order = position
            session.add(page)
    await session.flush()


async def delete_landing(session: AsyncSession, page: LandingPage) -> None:
    """Delete the page; its purchases stay, without a landing."""
    await session.delete(page)
    await session.flush()


def detail(page: LandingPage) -> LandingDetailResponse:
    return LandingDetailResponse.model_validate(
        {**page.config, **page.model_dump(include={"id", "slug", "is_active", "gift_enabled", "display_order",
                                                   "created_at", "updated_at"})}
    )  # fmt: skip


def discount_active(page: LandingPage, now: datetime) -> bool:
    """A discount percent, inside its window when it has one."""
    config = page.config
    if not config.get("discount_percent"):
        return False
    starts, ends = moment(config.get("discount_starts_at")), moment(config.get("discount_ends_at"))
    if starts is not None and starts > now:
        return False
    return ends is None or ends > now


async def listing(session: AsyncSession) -> list[LandingListItem]:
    """Every page in display order with its purchases counted by status (one query)."""
    pages = (
        await session.exec(select(LandingPage).order_by(col(LandingPage.display_order), col(LandingPage.id)))
    ).all()
    counted = select(col(GuestPurchase.landing_id), col(GuestPurchase.status), func.count()).group_by(
        col(GuestPurchase.landing_id), col(GuestPurchase.status)
    )
    counts: dict[int, dict[str, int]] = {}
    for landing_id, status, count in (await session.exec(counted)).all():
        if landing_id is not None and status in STATUSES:
            counts.setdefault(landing_id, {})[status] = count
    now = utcnow()
    items = []
    for page in pages:
        assert page.id is not None
        by_status = counts.get(page.id, {})
        items.append(
            LandingListItem(
                id=page.id,
                slug=page.slug,
                title=page.config.get("title") or {},
                is_active=page.is_active,
                display_order=page.display_order,
                gift_enabled=page.gift_enabled,
                tariff_count=len(page.config.get("allowed_tariff_ids") or []),
                method_count=len(page.config.get("payment_methods") or []),
                purchase_stats=PurchaseStats(total=sum(by_status.values()), **by_status),
                has_active_discount=discount_active(page, now),
                created_at=page.created_at,
                updated_at=page.updated_at,
            )
        )
    return items
