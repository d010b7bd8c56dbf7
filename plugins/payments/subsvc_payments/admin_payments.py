"""`/cabinet/admin/payments` (tag Cabinet Admin Payments, permissions ``payments:read``, the
check ``payments:edit``): every user's payments, their search and figures. rbac audits every
call."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Query, Router
from subsvc_payments import payment_search, pending
from subsvc_payments.admin_schemas import (
    AdminManualCheckResponse,
    AdminPaymentListResponse,
    AdminPaymentResponse,
    PaymentsStatsResponse,
    SearchStatsResponse,
)

router = Router(area="cabinet-admin", tag="Cabinet Admin Payments", prefix="/cabinet/admin/payments")
READ, EDIT = "payments:read", "payments:edit"
Page = Annotated[int, Query(ge=1, description="Page number")]
PerPage = Annotated[int, Query(ge=1, le=100, description="Items per page")]
Cursor = Annotated[
    str | None,
    Query(
        max_length=200,
        description="Keyset pagination: the `next_cursor` of the previous page (then `page` is not used); "
        "no payment is answered twice or missed while new ones are made",
    ),
]
MethodFilter = Annotated[str | None, Query(max_length=50, description="Filter by payment method")]
SearchText = Annotated[
    str | None,
    Query(max_length=256, description="Search query (invoice, @username, telegram_id, email)"),
]
StatusFilter = Annotated[str, Query(description="Status filter: all, pending, paid, cancelled")]
Period = Annotated[str, Query(description="Period preset: 24h, 7d, 30d, all")]
DateFrom = Annotated[datetime | None, Query(description="Custom range start (ISO 8601)")]
DateTo = Annotated[datetime | None, Query(description="Custom range end (ISO 8601)")]
BAD_RANGE = {400: payment_search.BAD_RANGE}


@dataclass(frozen=True)
class SearchQuery:
    """The search's query parameters, which the search and its figures share."""

    search: SearchText = None
    status_filter: StatusFilter = "all"
    method_filter: MethodFilter = None
    period: Period = payment_search.DEFAULT_PERIOD
    date_from: DateFrom = None
    date_to: DateTo = None

    def found(self) -> payment_search.Search:
        """The search it asks for (400 when the dates are the wrong way round)."""
        return payment_search.search(
            self.search, self.status_filter, self.method_filter, self.period, self.date_from, self.date_to
        )


Searched = Annotated[SearchQuery, Query()]
BAD_CURSOR = {400: f"{payment_search.BAD_CURSOR} (not a `next_cursor` of this service)"}


@router.get("", permission=READ, responses=BAD_CURSOR)
async def get_all_pending_payments(
    request: Request,
    session: AsyncSession,
    page: Page = 1,
    per_page: PerPage = 20,
    method_filter: MethodFilter = None,
    cursor: Cursor = None,
) -> AdminPaymentListResponse:
    """Every user's pending payments, newest first, with their users."""
    found = payment_search.Search(
        statuses=payment_search.STATUS_GROUPS["pending"], method=method_filter or None
    )
    return await payment_search.page(request.app, session, found, page, per_page, cursor)


@router.get("/stats", permission=READ)
async def get_payments_stats(session: AsyncSession) -> PaymentsStatsResponse:
    """How many payments are pending, in all and per method."""
    return await payment_search.pending_stats(session)


@router.get(
    "/search",
    permission=READ,
    responses={400: f"{payment_search.BAD_RANGE}, or {payment_search.BAD_CURSOR}"},
)
async def search_payments_endpoint(
    request: Request,
    session: AsyncSession,
    searched: Searched,
    page: Page = 1,
    per_page: PerPage = 20,
    cursor: Cursor = None,
) -> AdminPaymentListResponse:
    """Payments of every status, newest first: by text (payment id or provider's id, the
    user's id, messenger id, username or e-mail), status group (another value: all), method,
    period (another value: 24h) or dates (which win over the period)."""
    return await payment_search.page(request.app, session, searched.found(), page, per_page, cursor)


@router.get("/search/stats", permission=READ, responses=BAD_RANGE)
async def search_payments_stats_endpoint(session: AsyncSession, searched: Searched) -> SearchStatsResponse:
    """The search's figures: counts by status group (pending, paid, cancelled) and sums
    (asked, and credited), in all, per method (`by_method`) and per method and UTC day
    (`by_day`)."""
    return await payment_search.search_stats(session, searched.found())


@router.get(
    "/{method}/{payment_id}",
    permission=READ,
    responses={404: f"{pending.PAYMENT_NOT_FOUND} (unknown, or of another method)"},
)
async def get_pending_payment_details(
    request: Request, session: AsyncSession, method: str, payment_id: int
) -> AdminPaymentResponse:
    """One payment of any user, with its user."""
    return await payment_search.one(request.app, session, method, payment_id)


@router.post(
    "/{method}/{payment_id}/check",
    permission=EDIT,
    responses={
        404: f"{pending.PAYMENT_NOT_FOUND} (unknown, or of another method)",
        502: "The payment provider is down or refused",
    },
)
async def check_payment_status(
    request: Request, session: AsyncSession, method: str, payment_id: int
) -> AdminManualCheckResponse:
    """The user's check without the ownership rule: the provider is asked, a paid payment
    credits its user once (however many checks and notifications race)."""
    checked = await pending.run_check(request.app, session, None, method, payment_id)
    shown = await payment_search.one(request.app, session, method, payment_id)
    return AdminManualCheckResponse(**checked.fields(), payment=shown)
