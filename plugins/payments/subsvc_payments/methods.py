"""The payment methods as the cabinet offers them: what the provider plugins offer (the
``payments_providers`` hook) with the administrators' configuration applied (its rows in
``payment_method_configs``), and which of them a user sees. Read fresh on every request: a
change is seen by the next request on every instance (no cache)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_billing.api import DEPOSIT, Transaction
from subsvc_users.api import User

from subsvc_payments.models import ALL, PaymentMethodConfig, PaymentMethodPromoGroup
from subsvc_payments.providers import PaymentMethodInfo, offered_methods


@dataclass(frozen=True)
class Method:
    """One method: the provider plugin's ``info`` (``None`` while its provider is not
    configured), the administrators' ``config`` (``None`` before its row exists: the
    defaults), the promo groups allowed in ``selected`` mode, and its place in the plugins'
    order (``position``)."""

    id: str
    info: PaymentMethodInfo | None
    config: PaymentMethodConfig | None
    allowed_groups: frozenset[int]
    position: int

    @property
    def enabled(self) -> bool:
        return self.config is None or self.config.is_enabled

    @property
    def default_name(self) -> str:
        return self.id if self.info is None else self.info.name

    @property
    def name(self) -> str:
        override = self.config.display_name if self.config else None
        return override or self.default_name

    @property
    def description(self) -> str | None:
        if self.config is not None and self.config.description is not None:
            return self.config.description
        return None if self.info is None else self.info.description

    @property
    def default_limits(self) -> tuple[int, int]:
        return (0, 0) if self.info is None else (self.info.min_amount_kopeks, self.info.max_amount_kopeks)

    @property
    def limits(self) -> tuple[int, int]:
        """The smallest and largest amount it takes (the overrides, else the provider's)."""
        low, high = self.default_limits
        if self.config is not None:
            low = low if self.config.min_amount_kopeks is None else self.config.min_amount_kopeks
            high = high if self.config.max_amount_kopeks is None else self.config.max_amount_kopeks
        return low, high

    @property
    def available_options(self) -> list[Mapping[str, Any]] | None:
        return None if self.info is None or self.info.options is None else list(self.info.options)

    @property
    def options(self) -> list[dict[str, Any]] | None:
        """The provider's sub-options the administrators left on (``None``: it has none)."""
        available = self.available_options
        if available is None:
            return None
        switched = (self.config.sub_options if self.config else None) or {}
        return [dict(option) for option in available if switched.get(str(option.get("id")), True)]

    @property
    def default_quick_amounts(self) -> list[int]:
        return [] if self.info is None else list(self.info.quick_amounts)

    @property
    def quick_amounts(self) -> list[int]:
        """The one-tap amounts (the override, else the provider's) within the limits."""
        override = self.config.quick_amounts if self.config else None
        low, high = self.limits
        chosen = self.default_quick_amounts if override is None else override
        return [amount for amount in chosen if low <= amount <= high]

    @property
    def open_url_direct(self) -> bool:
        if self.config is not None and self.config.open_url_direct is not None:
            return self.config.open_url_direct
        return self.info is not None and self.info.open_url_direct

    def usable(self) -> bool:
        """Offered, on, and payable: its provider configured, an option left if it has any."""
        options = self.options
        return self.info is not None and self.enabled and (options is None or bool(options))


@dataclass(frozen=True)
class Payer:
    """What decides which methods a user sees: a messenger account (it has a messenger id)
    or not (signed up in the cabinet by e-mail or OAuth), whether a completed ``deposit``
    was ever made, and the user's promo group."""

    messenger: bool
    topped_up: bool
    promo_group_id: int | None


def _filtered(config: PaymentMethodConfig | None) -> bool:
    return config is not None and (
        config.user_type_filter != ALL
        or config.first_topup_filter != "any"
        or config.promo_group_filter_mode != ALL
    )


def visible_to(method: Method, payer: Payer) -> bool:
    """Whether the method's filters let this user see it."""
    config = method.config
    if config is None:
        return True
    if config.user_type_filter != ALL and (config.user_type_filter == "messenger") != payer.messenger:
        return False
    if config.first_topup_filter != "any" and (config.first_topup_filter == "yes") == payer.topped_up:
        return False
    if config.promo_group_filter_mode != ALL:
        return payer.promo_group_id is not None and payer.promo_group_id in method.allowed_groups
    return True


async def configs(session: AsyncSession) -> dict[str, PaymentMethodConfig]:
    """Every method's configuration row, by method id (one query)."""
    query = select(PaymentMethodConfig).execution_options(populate_existing=True)
    return {row.method_id: row for row in (await session.exec(query)).all()}


async def allowed_groups(session: AsyncSession, method_ids: Iterable[str]) -> dict[str, frozenset[int]]:
    """The promo groups allowed per method (one query; none when no method is named)."""
    wanted = list(method_ids)
    if not wanted:
        return {}
    link = PaymentMethodPromoGroup
    query = select(col(link.method_id), col(link.promo_group_id)).where(col(link.method_id).in_(wanted))
    found: dict[str, set[int]] = {}
    for method_id, group_id in (await session.exec(query)).all():
        found.setdefault(method_id, set()).add(group_id)
    return {method_id: frozenset(groups) for method_id, groups in found.items()}


def _order(offered: Sequence[str], rows: Mapping[str, PaymentMethodConfig]) -> list[tuple[str, int]]:
    """Method ids with their plugin position: rows by ``sort_order`` (ties by the plugins'
    order), then the offered methods without a row, in the plugins' order."""
    position = {method_id: index for index, method_id in enumerate(offered)}
    last = len(offered)
    rowed = sorted(rows, key=lambda m: (rows[m].sort_order, position.get(m, last), m))
    fresh = [m for m in offered if m not in rows]
    return [(m, position.get(m, last)) for m in [*rowed, *fresh]]


async def all_methods(app: Starlette, session: AsyncSession, *, with_groups: bool = True) -> list[Method]:
    """Every method, offered now or configured before, in the cabinet's order; the promo
    groups read only for the methods in ``selected`` mode (``with_groups``)."""
    offered = await offered_methods(app)
    rows = await configs(session)
    selected = [m for m, row in rows.items() if row.promo_group_filter_mode != ALL] if with_groups else []
    groups = await allowed_groups(session, selected)
    return [
        Method(
            method_id, offered.get(method_id), rows.get(method_id), groups.get(method_id, frozenset()), index
        )
        for method_id, index in _order(list(offered), rows)
    ]


async def payer(session: AsyncSession, user_id: int) -> Payer:
    """The user's facts for the filters, in one query (users, with an EXISTS on billing's
    transactions by its index ``(user_id, created_at)``)."""
    deposit = exists().where(
        col(Transaction.user_id) == user_id,
        col(Transaction.type) == DEPOSIT,
        col(Transaction.is_completed).is_(True),
    )
    query = select(col(User.messenger_id), col(User.promo_group_id), deposit).where(col(User.id) == user_id)
    row = (await session.exec(query)).first()
    if row is None:
        return Payer(messenger=False, topped_up=False, promo_group_id=None)
    messenger_id, promo_group_id, topped_up = row
    return Payer(messenger=messenger_id is not None, topped_up=bool(topped_up), promo_group_id=promo_group_id)


async def user_methods(app: Starlette, session: AsyncSession, user_id: int) -> list[Method]:
    """The methods this user may pay with, in order: offered, on, payable and let through by
    their filters. At most one query per table (configs, promo group links, the user)."""
    usable = [method for method in await all_methods(app, session) if method.usable()]
    if not any(_filtered(method.config) for method in usable):
        return usable
    facts = await payer(session, user_id)
    return [method for method in usable if visible_to(method, facts)]


async def offered_to(app: Starlette, session: AsyncSession, user_id: int, method_id: str) -> Method | None:
    """The method as this user may pay with it (the administrators' names, limits and
    options applied), or ``None`` when it is not offered to them: for a provider plugin's own
    creation endpoint, which must honour the configuration as the top-up does."""
    return next(
        (method for method in await user_methods(app, session, user_id) if method.id == method_id), None
    )
