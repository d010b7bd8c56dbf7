"""Extension points of the cabinet_oauth plugin, for the plugins that keep rows of users."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.hookspecs import hookspec
from subsvc.services import services

MergeReport = Mapping[str, Any]
"""What an implementation of :func:`cabinet_account_merging` tells the ``account.merged``
event: ``moved_balance_kopeks`` (billing), ``moved_subscription_ids`` and
``disabled_subscription_ids`` (subscriptions)."""


@hookspec
def cabinet_account_merging(
    app: Starlette,
    session: AsyncSession,
    kept_user_id: int,
    removed_user_id: int,
    keep_subscription_from: int,
) -> Awaitable[MergeReport | None] | MergeReport | None:
    """Give the plugin's rows of ``removed_user_id`` to ``kept_user_id`` (or drop those a
    unique key makes duplicates of the kept user's, the kept user's winning); may return an
    awaitable, and a :data:`MergeReport`.

    Every plugin that keeps rows referring to users implements it for its own tables (and for
    no other plugin's): after the merge no row of any table refers to the removed user. Called
    inside the merge's transaction, once both user rows are locked and the identities moved:
    whatever the implementation changes in ``session`` commits with the merge or not at all.
    Implementations run one after the other, dependents first; the users plugin's
    (``trylast``) last retires the removed user. ``keep_subscription_from`` is the user whose
    subscription stays live when both have one. Grants are dropped rather than moved (a merge
    must not raise anybody's privileges). Raise to refuse the merge.

    A plugin that does not require cabinet_oauth marks its implementation
    ``@hookimpl(optionalhook=True)``.
    """


@hookspec(firstresult=True)
def cabinet_merge_preview_subscription(
    app: Starlette, session: AsyncSession, user_id: int
) -> Awaitable[Mapping[str, Any] | None] | Mapping[str, Any] | None:
    """The user's subscription as the merge preview shows it (the fields of
    ``MergePreviewSubscription``: status, is_trial, end_date, traffic_limit_gb,
    traffic_used_gb, device_limit, tariff_name, autopay_enabled), or ``None`` when the user
    has none. Implemented by the plugin that keeps subscriptions (``optionalhook``)."""


async def merge_accounts(
    app: Starlette,
    session: AsyncSession,
    kept_user_id: int,
    removed_user_id: int,
    keep_subscription_from: int,
) -> dict[str, Any]:
    """Call every implementation of :func:`cabinet_account_merging` (core's ``call_all``: in
    pluggy's order, each awaited before the next is called); their reports in one dict."""
    report: dict[str, Any] = {}
    for answer in await services(app).plugins.call_all(
        "cabinet_account_merging",
        app=app,
        session=session,
        kept_user_id=kept_user_id,
        removed_user_id=removed_user_id,
        keep_subscription_from=keep_subscription_from,
    ):
        report.update(answer)
    return report
