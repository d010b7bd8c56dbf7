"""The rules of tariffs (no HTTP here).

- Period prices are stored as ``{"<days>": kopeks}``; requests give a list (no repeated
  period, days 1..36500, prices >= 0, checked by the request models).
- ``min_days <= max_days``, ``min_traffic_gb <= max_traffic_gb``, ``max_device_limit >=
  device_limit`` (when set), and per-server traffic limits only for servers the tariff
  includes: checked on the tariff as it would be after the change (:class:`TariffRuleError`).
- ``allowed_squads`` must name servers of the servers plugin, ``promo_group_ids`` existing
  promo groups.
- At most one tariff is the trial tariff: making one the trial tariff takes the flag from the
  others (serialised with an advisory lock on PostgreSQL, backed by a partial unique index).
- A tariff that any subscription uses (any status) cannot be deleted (:class:`TariffInUse`);
  the subscriptions table has no foreign key to tariffs, so the check holds the tariff's row
  lock, and plugins that put a tariff on a subscription read it with :func:`lock_for_use`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, delete, func, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_promo_groups.api import PromoGroup
from subsvc_servers.api import Server
from subsvc_subscriptions.api import Subscription

from subsvc.api import INT32_MAX
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_tariffs.models import Tariff, TariffPromoGroup
from subsvc_tariffs.schemas import PeriodPrice, ServerTrafficLimit, TariffCreateRequest, TariffUpdateRequest

LIVE_STATUSES = ("active", "trial")
# pg_advisory_xact_lock key of "which tariff is the trial tariff may change"
_TRIAL_LOCK = 0x5375_6273_5461_7246
# Fields an explicit null clears on update (the others: null = unchanged).
_NULLABLE = (
    "description",
    "device_price_kopeks",
    "max_device_limit",
    "traffic_reset_mode",
    "external_squad_uuid",
    "lava_product_id",
)


class TariffNotFound(LookupError):
    """No tariff has the id."""


class TariffInUse(ValueError):
    """Subscriptions use the tariff."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


class TariffRuleError(ValueError):
    """The change would break a rule; the message says which."""


@dataclass(frozen=True)
class TariffCounts:
    """A tariff's subscriptions: all, live (stored active or trial, end date ahead), trial."""

    total: int
    active: int
    trial: int


# --- reads -------------------------------------------------------------------------------------


async def _hold_on_sqlite(session: AsyncSession, *conditions: Any) -> None:
    """SQLite has no row locks, and its driver starts a transaction only at the first write:
    an UPDATE that changes nothing takes the database's write lock first, so what this
    transaction reads next is current and stays so (PostgreSQL uses ``FOR UPDATE``)."""
    if session.get_bind().dialect.name == "sqlite":
        await session.exec(update(Tariff).where(*conditions).values(display_order=col(Tariff.display_order)))


async def find_tariff(session: AsyncSession, tariff_id: int, *, for_update: bool = False) -> Tariff | None:
    """The tariff with this id (``None`` for ids no row can have); ``for_update`` holds its
    row until the transaction ends."""
    if not 1 <= tariff_id <= INT32_MAX:
        return None
    query = select(Tariff).where(col(Tariff.id) == tariff_id)
    if for_update:
        await _hold_on_sqlite(session, col(Tariff.id) == tariff_id)
        query = query.with_for_update()
    return (await session.exec(query)).first()


async def get_tariff(session: AsyncSession, tariff_id: int, *, for_update: bool = False) -> Tariff:
    tariff = await find_tariff(session, tariff_id, for_update=for_update)
    if tariff is None:
        raise TariffNotFound(tariff_id)
    return tariff


async def lock_for_use(session: AsyncSession, tariff_id: int) -> Tariff | None:
    """The tariff, read with a shared row lock held until the transaction ends (SQLite: the
    write lock): call it before putting ``tariff_id`` on a subscription, so that a concurrent
    delete waits and then sees the subscription (and answers 409) instead of deleting a
    tariff in use."""
    if not 1 <= tariff_id <= INT32_MAX:
        return None
    await _hold_on_sqlite(session, col(Tariff.id) == tariff_id)
    query = select(Tariff).where(col(Tariff.id) == tariff_id).with_for_update(read=True)
    return (await session.exec(query)).first()


async def list_tariffs(session: AsyncSession, *, include_inactive: bool = True) -> list[Tariff]:
    """Tariffs by ``display_order``, then id; only active ones unless ``include_inactive``."""
    query = select(Tariff).order_by(col(Tariff.display_order), col(Tariff.id))
    if not include_inactive:
        query = query.where(col(Tariff.is_active))
    return list((await session.exec(query)).all())


async def subscription_counts(session: AsyncSession, tariff_ids: Sequence[int]) -> dict[int, int]:
    """Subscriptions (any status) per tariff, in one grouped query: ``{tariff_id: n}``."""
    counts = dict.fromkeys(tariff_ids, 0)
    if not tariff_ids:
        return counts
    query = (
        select(col(Subscription.tariff_id), func.count())
        .where(col(Subscription.tariff_id).in_(list(tariff_ids)))
        .group_by(col(Subscription.tariff_id))
    )
    for tariff_id, count in (await session.exec(query)).all():
        if tariff_id is not None:
            counts[tariff_id] = count
    return counts


async def promo_group_ids(session: AsyncSession, tariff_ids: Sequence[int]) -> dict[int, list[int]]:
    """The promo groups allowed to buy each tariff (empty: every group), in one query."""
    allowed: dict[int, list[int]] = {tariff_id: [] for tariff_id in tariff_ids}
    if not tariff_ids:
        return allowed
    query = (
        select(col(TariffPromoGroup.tariff_id), col(TariffPromoGroup.promo_group_id))
        .where(col(TariffPromoGroup.tariff_id).in_(list(tariff_ids)))
        .order_by(col(TariffPromoGroup.tariff_id), col(TariffPromoGroup.promo_group_id))
    )
    for tariff_id, group_id in (await session.exec(query)).all():
        allowed[tariff_id].append(group_id)
    return allowed


def allowed(groups: Sequence[int], promo_group_id: int | None) -> bool:
    """May a member of ``promo_group_id`` buy a tariff restricted to ``groups`` (empty: all)?"""
    return not groups or (promo_group_id is not None and promo_group_id in groups)


async def counts(session: AsyncSession, tariff_id: int) -> TariffCounts:
    """The tariff's subscriptions in one query: all, live (stored ``active``/``trial`` with an
    end date ahead: the ones that read as active), and trials (any status)."""
    live = col(Subscription.status).in_(LIVE_STATUSES) & (col(Subscription.end_date) > utcnow())
    query = select(
        func.count(),
        func.coalesce(func.sum(case((live, 1), else_=0)), 0),
        func.coalesce(func.sum(case((col(Subscription.is_trial), 1), else_=0)), 0),
    ).where(col(Subscription.tariff_id) == tariff_id)
    total, active, trial = (await session.exec(query)).one()
    return TariffCounts(int(total), int(active), int(trial))


async def tariffs_offering(session: AsyncSession, squad_uuid: str) -> list[str]:
    """Names of the tariffs (any state, display order) whose ``allowed_squads`` include the
    squad. The catalogue is small: read whole, filtered here, the same on both databases."""
    query = select(col(Tariff.name), col(Tariff.allowed_squads)).order_by(
        col(Tariff.display_order), col(Tariff.id)
    )
    return [name for name, squads in (await session.exec(query)).all() if squad_uuid in (squads or ())]


async def revenue_kopeks(app: Starlette, session: AsyncSession, tariff_id: int) -> int:
    """The revenue the ``tariff_revenue_kopeks`` implementations report, added up (0 without)."""
    parts = await services(app).plugins.call_all(
        "tariff_revenue_kopeks", app=app, session=session, tariff_id=tariff_id
    )
    return sum(int(part) for part in parts)


# --- stored forms ------------------------------------------------------------------------------


def stored_periods(prices: Iterable[PeriodPrice]) -> dict[str, int]:
    return {str(price.days): price.price_kopeks for price in sorted(prices, key=lambda p: p.days)}


def period_list(stored: dict[str, Any]) -> list[PeriodPrice]:
    """Stored period prices as a list by days, with rubles (entries that do not read as whole
    numbers are left out)."""
    prices: list[PeriodPrice] = []
    for days, kopeks in stored.items():
        try:
            day_count, price = int(days), int(kopeks)
        except (TypeError, ValueError):
            continue
        prices.append(PeriodPrice(days=day_count, price_kopeks=price, price_rubles=price / 100))
    return sorted(prices, key=lambda price: price.days)


def stored_limits(limits: dict[str, ServerTrafficLimit]) -> dict[str, dict[str, int]]:
    return {uuid: limit.model_dump() for uuid, limit in limits.items()}


def limit_of(stored: Any) -> int | None:
    """A stored per-server limit (``{"traffic_limit_gb": n}``, or a bare number) in GB."""
    if isinstance(stored, dict):
        stored = stored.get("traffic_limit_gb")
    return stored if isinstance(stored, int) and not isinstance(stored, bool) else None


# --- checks ------------------------------------------------------------------------------------


def _check_ranges(tariff: Tariff) -> None:
    if tariff.min_days > tariff.max_days:
        raise TariffRuleError("min_days must not exceed max_days")
    if tariff.min_traffic_gb > tariff.max_traffic_gb:
        raise TariffRuleError("min_traffic_gb must not exceed max_traffic_gb")
    if tariff.max_device_limit is not None and tariff.max_device_limit < tariff.device_limit:
        raise TariffRuleError("max_device_limit must not be below device_limit")
    stray = [uuid for uuid in tariff.server_traffic_limits if uuid not in tariff.allowed_squads]
    if stray:
        raise TariffRuleError(
            f"server_traffic_limits names servers the tariff does not include: {', '.join(stray)}"
        )


async def _check_servers(session: AsyncSession, squads: Sequence[str]) -> None:
    if not squads:
        return
    query = select(col(Server.squad_uuid)).where(col(Server.squad_uuid).in_(list(squads)))
    known = set((await session.exec(query)).all())
    unknown = [squad for squad in squads if squad not in known]
    if unknown:
        raise TariffRuleError(f"Unknown servers: {', '.join(unknown)}")


async def _check_groups(session: AsyncSession, group_ids: Sequence[int]) -> None:
    if not group_ids:
        return
    query = select(col(PromoGroup.id)).where(col(PromoGroup.id).in_(list(group_ids)))
    known = set((await session.exec(query)).all())
    unknown = [str(group_id) for group_id in group_ids if group_id not in known]
    if unknown:
        raise TariffRuleError(f"Unknown promo groups: {', '.join(unknown)}")


async def _set_groups(session: AsyncSession, tariff_id: int, group_ids: Sequence[int]) -> bool:
    """Make exactly these groups the tariff's; ``True`` when that changed anything."""
    current = set((await promo_group_ids(session, [tariff_id]))[tariff_id])
    wanted = set(group_ids)
    if current == wanted:
        return False
    gone = current - wanted
    if gone:
        await session.exec(
            delete(TariffPromoGroup).where(
                col(TariffPromoGroup.tariff_id) == tariff_id, col(TariffPromoGroup.promo_group_id).in_(gone)
            )
        )
    added = sorted(wanted - current)
    for group_id in added:
        session.add(TariffPromoGroup(tariff_id=tariff_id, promo_group_id=group_id))
    try:
        await session.flush()
    except IntegrityError:  # a group was deleted since it was checked
        raise TariffRuleError(f"Unknown promo groups: {', '.join(map(str, added))}") from None
    return True


def _description(text: str | None) -> str | None:
    return (text or "").strip() or None


# --- writes ------------------------------------------------------------------------------------


async def create_tariff(session: AsyncSession, data: TariffCreateRequest) -> Tariff:
    """Add a tariff at the end of the display order."""
    await _check_servers(session, data.allowed_squads)
    await _check_groups(session, data.promo_group_ids)
    last = (await session.exec(select(func.max(col(Tariff.display_order))))).one()
    values = data.model_dump(exclude={"period_prices", "server_traffic_limits", "promo_group_ids"})
    now = utcnow()
    tariff = Tariff(
        **values,
        period_prices=stored_periods(data.period_prices),
        server_traffic_limits=stored_limits(data.server_traffic_limits),
        display_order=0 if last is None else last + 1,
        created_at=now,
        updated_at=now,
    )
    tariff.description = _description(tariff.description)
    _check_ranges(tariff)
    session.add(tariff)
    await session.flush()
    assert tariff.id is not None
    await _set_groups(session, tariff.id, data.promo_group_ids)
    return tariff


def _requested_changes(tariff: Tariff, data: TariffUpdateRequest) -> dict[str, Any]:
    given = data.model_fields_set
    changes: dict[str, Any] = {}
    plain = data.model_dump(exclude={"period_prices", "server_traffic_limits", "promo_group_ids"})
    for name, value in plain.items():
        if name in _NULLABLE:
            if name in given:
                changes[name] = _description(value) if name == "description" else value
        elif value is not None:
            changes[name] = value
    if data.period_prices is not None:
        changes["period_prices"] = stored_periods(data.period_prices)
    if data.server_traffic_limits is not None:
        changes["server_traffic_limits"] = stored_limits(data.server_traffic_limits)
    elif data.allowed_squads is not None:  # limits of servers the tariff no longer includes go
        kept = set(data.allowed_squads)
        changes["server_traffic_limits"] = {
            k: v for k, v in tariff.server_traffic_limits.items() if k in kept
        }
    return changes


async def update_tariff(
    session: AsyncSession, tariff_id: int, data: TariffUpdateRequest
) -> tuple[Tariff, list[str]]:
    """Change the given fields; returns the tariff and the names of the fields that changed."""
    tariff = await get_tariff(session, tariff_id, for_update=True)
    assert tariff.id is not None
    changes = _requested_changes(tariff, data)
    if "allowed_squads" in changes:
        new = [squad for squad in changes["allowed_squads"] if squad not in tariff.allowed_squads]
        await _check_servers(session, new)
    if data.promo_group_ids is not None:
        await _check_groups(session, data.promo_group_ids)
    changed = [name for name, value in changes.items() if getattr(tariff, name) != value]
    for name in changed:
        setattr(tariff, name, changes[name])
    _check_ranges(tariff)
    if data.promo_group_ids is not None and await _set_groups(session, tariff.id, data.promo_group_ids):
        changed.append("promo_group_ids")
    if changed:
        tariff.updated_at = utcnow()
    await session.flush()
    return tariff, changed


async def reorder(session: AsyncSession, tariff_ids: Sequence[int]) -> None:
    """Put these tariffs first, in this order; the others keep their order after them.
    ``display_order`` becomes each tariff's position (0, 1, ...)."""
    await _hold_on_sqlite(session)
    query = select(Tariff).order_by(col(Tariff.display_order), col(Tariff.id)).with_for_update()
    rows = list((await session.exec(query)).all())
    by_id = {tariff.id: tariff for tariff in rows}
    unknown = [str(tariff_id) for tariff_id in tariff_ids if tariff_id not in by_id]
    if unknown:
        raise TariffRuleError(f"Unknown tariffs: {', '.join(unknown)}")
    listed = set(tariff_ids)
    ordered = [by_id[tariff_id] for tariff_id in tariff_ids] + [t for t in rows if t.id not in listed]
    now = utcnow()
    for position, tariff in enumerate(ordered):
        if tariff.display_order != position:
            tariff.display_order = position
            tariff.updated_at = now
    await session.flush()


async def toggle_active(session: AsyncSession, tariff_id: int) -> Tariff:
    tariff = await get_tariff(session, tariff_id, for_update=True)
    tariff.is_active = not tariff.is_active
    tariff.updated_at = utcnow()
    await session.flush()
    return tariff


async def toggle_trial(session: AsyncSession, tariff_id: int) -> Tariff:
    """Flip the tariff's trial flag; setting it takes it from every other tariff."""
    if session.get_bind().dialect.name == "postgresql":
        await session.exec(select(func.pg_advisory_xact_lock(_TRIAL_LOCK)))
    tariff = await get_tariff(session, tariff_id, for_update=True)
    now = utcnow()
    if not tariff.is_trial_available:
        await session.exec(
            update(Tariff)
            .where(col(Tariff.is_trial_available), col(Tariff.id) != tariff_id)
            .values(is_trial_available=False, updated_at=now)
            .execution_options(synchronize_session=False)
        )
    tariff.is_trial_available = not tariff.is_trial_available
    tariff.updated_at = now
    await session.flush()
    return tariff


async def delete_tariff(session: AsyncSession, tariff_id: int) -> Tariff:
    """Delete a tariff no subscription uses (its promo-group rows go with it)."""
    tariff = await get_tariff(session, tariff_id, for_update=True)
    used = (await subscription_counts(session, [tariff_id]))[tariff_id]
    if used:
        raise TariffInUse(used)
    await session.exec(delete(Tariff).where(col(Tariff.id) == tariff_id))
    session.expunge(tariff)
    return tariff


async def forget_promo_group(session: AsyncSession, group_id: int) -> None:
    """A promo group is being deleted: take it off the tariffs that allow other groups too.
    A tariff it is the only group of keeps the row, so the group's delete fails (409) rather
    than silently opening that tariff to every group."""
    query = select(col(TariffPromoGroup.tariff_id)).where(col(TariffPromoGroup.promo_group_id) == group_id)
    tariff_ids = list((await session.exec(query)).all())
    groups = await promo_group_ids(session, tariff_ids)
    shared = [tariff_id for tariff_id, allowed in groups.items() if len(allowed) > 1]
    if shared:
        await session.exec(
            delete(TariffPromoGroup).where(
                col(TariffPromoGroup.promo_group_id) == group_id, col(TariffPromoGroup.tariff_id).in_(shared)
            )
        )
