"""The administrators' configuration of the payment methods (``payment_method_configs``): one
row per method id, made the first time an administrator reads or changes the methods (the
cabinet reads a method without a row as its defaults). Refusals of an update are 422 in
FastAPI's shape, every failing field at once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette
from subsvc_promo_groups.api import PromoGroup

from subsvc.api import RequestValidationError
from subsvc.db import utcnow
from subsvc.services import services
from subsvc_payments.admin_schemas import PaymentMethodConfigUpdateRequest
from subsvc_payments.methods import Method, all_methods, allowed_groups
from subsvc_payments.models import PaymentMethodConfig, PaymentMethodPromoGroup

OVERRIDES = frozenset(
    {"display_name", "description", "quick_amounts", "min_amount_kopeks", "max_amount_kopeks", "sub_options",
     "open_url_direct"}
)  # fmt: skip
"""The fields whose ``null`` means the provider's default (the others' means unchanged)."""
RESETS = {
    "reset_display_name": "display_name",
    "reset_description": "description",
    "reset_quick_amounts": "quick_amounts",
    "reset_min_amount": "min_amount_kopeks",
    "reset_max_amount": "max_amount_kopeks",
}


class MethodNotFound(LookupError):
    """No provider plugin offers this method and it has no configuration: 404."""

    def __init__(self, method_id: str) -> None:
        super().__init__(f"Payment method not found: {method_id}")


def _invalid(loc: Sequence[str | int], value: Any, message: str) -> dict[str, Any]:
    return {"type": "value_error", "loc": ["body", *loc], "msg": f"Value error, {message}", "input": value,
            "ctx": {"error": message}}  # fmt: skip


async def _ensure_rows(session: AsyncSession, methods: Sequence[Method], method_ids: Iterable[str]) -> None:
    """Rows for these methods where there are none (after the others, in the order shown so
    far); always one write statement, so that on SQLite the transaction holds the write turn
    from here."""
    shown = {method.id: index for index, method in enumerate(methods)}
    wanted = sorted(set(method_ids), key=lambda method_id: shown.get(method_id, len(shown)))
    if not wanted:
        return
    start = max((m.config.sort_order for m in methods if m.config is not None), default=-1) + 1
    rows = [PaymentMethodConfig(method_id=m, sort_order=start + i).model_dump() for i, m in enumerate(wanted)]
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = PaymentMethodConfig.__table__  # type: ignore[attr-defined]
    await session.exec(
        dialect.insert(table).values(rows).on_conflict_do_nothing(index_elements=["method_id"])
    )


async def _locked_rows(session: AsyncSession, method_ids: Iterable[str]) -> dict[str, PaymentMethodConfig]:
    query = (
        select(PaymentMethodConfig)
        .where(col(PaymentMethodConfig.method_id).in_(list(method_ids)))
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {row.method_id: row for row in (await session.exec(query)).all()}


async def listed(app: Starlette, session: AsyncSession) -> list[Method]:
    """Every method in order, the offered ones without a row given one first (in a session of
    their own: a GET's is read-only)."""
    methods = await all_methods(app, session)
    fresh = [method.id for method in methods if method.config is None]
    if not fresh:
        return methods
    async with services(app).db.session() as own:
        await _ensure_rows(own, methods, fresh)
        await own.commit()
    return await all_methods(app, session)


def _find(methods: Iterable[Method], method_id: str) -> Method:
    for method in methods:
        if method.id == method_id:
            return method
    raise MethodNotFound(method_id)


async def one(app: Starlette, session: AsyncSession, method_id: str) -> Method:
    """One method (404 when unknown), its row made if it had none."""
    return _find(await listed(app, session), method_id)


async def promo_groups(session: AsyncSession) -> list[PromoGroup]:
    """Every promo group, as the promo groups plugin lists them (priority, then name)."""
    query = select(PromoGroup).order_by(
        col(PromoGroup.priority).desc(), col(PromoGroup.name), col(PromoGroup.id)
    )
    return list((await session.exec(query)).all())


def _changes(payload: PaymentMethodConfigUpdateRequest) -> dict[str, Any]:
    """The columns the update sets: the fields given (``null`` only for an override), then
    the resets."""
    given = payload.model_fields_set - set(RESETS) - {"allowed_promo_group_ids"}
    changes = {name: getattr(payload, name) for name in given}
    changes = {name: value for name, value in changes.items() if value is not None or name in OVERRIDES}
    changes.update({name: None for flag, name in RESETS.items() if getattr(payload, flag)})
    return changes


async def _refusals(
    session: AsyncSession, method: Method, payload: PaymentMethodConfigUpdateRequest
) -> list[dict[str, Any]]:
    """What the update asks that the method cannot take."""
    errors = []
    low, high = method.limits
    if method.info is None and method.config is not None:  # the provider's limits are unknown now
        low, high = method.config.min_amount_kopeks or 0, method.config.max_amount_kopeks or low
    if low > high:
        given = payload.model_fields_set
        field = (
            "max_amount_kopeks"
            if "min_amount_kopeks" not in given and "max_amount_kopeks" in given
            else "min_amount_kopeks"
        )
        message = f"min_amount_kopeks ({low}) must not exceed max_amount_kopeks ({high})"
        errors.append(_invalid([field], getattr(payload, field), message))
    options = {str(option.get("id")) for option in method.available_options or ()}
    unknown_options = sorted(set(payload.sub_options or ()) - options)
    if method.info is not None and unknown_options:
        message = f"Unknown sub-options: {', '.join(unknown_options)}"
        errors.append(_invalid(["sub_options"], payload.sub_options, message))
    wanted = set(payload.allowed_promo_group_ids or ())
    if wanted:
        found = set(
            (await session.exec(select(col(PromoGroup.id)).where(col(PromoGroup.id).in_(wanted)))).all()
        )
        if wanted - found:
            missing = ", ".join(str(group) for group in sorted(wanted - found))
            errors.append(_invalid(["allowed_promo_group_ids"], payload.allowed_promo_group_ids,
                                   f"Unknown promo groups: {missing}"))  # fmt: skip
    return errors


async def _set_groups(session: AsyncSession, method_id: str, group_ids: Iterable[int]) -> None:
    link = PaymentMethodPromoGroup
    await session.exec(delete(link).where(col(link.method_id) == method_id))
    rows = [{"method_id": method_id, "promo_group_id": group} for group in sorted(set(group_ids))]
    if rows:
        await session.exec(insert(link).values(rows))


async def update(
    app: Starlette, session: AsyncSession, method_id: str, payload: PaymentMethodConfigUpdateRequest
) -> Method:
    """Apply a partial update to the method's row (locked; made first if missing, with the
    other offered methods' rows, so that the order seen so far stays)."""
    methods = await all_methods(app, session, with_groups=False)
    method = _find(methods, method_id)
    fresh = [m.id for m in methods if m.config is None]
    await _ensure_rows(session, methods, [*fresh, method_id])  # all at once: the order shown stays
    config = (await _locked_rows(session, [method_id]))[method_id]
    changes = _changes(payload)
    for name, value in changes.items():
        setattr(config, name, value)
    changed = Method(method.id, method.info, config, frozenset(), method.position)
    errors = await _refusals(session, changed, payload)
    if errors:
        raise RequestValidationError(errors)
    if payload.allowed_promo_group_ids is not None:
        await _set_groups(session, method_id, payload.allowed_promo_group_ids)
    if changes or payload.allowed_promo_group_ids is not None:
        config.updated_at = utcnow()
    session.add(config)
    await session.flush()
    groups = (await allowed_groups(session, [method_id])).get(method_id, frozenset())
    return Method(method.id, method.info, config, groups, method.position)


async def reorder(app: Starlette, session: AsyncSession, method_ids: Sequence[str]) -> list[Method]:
    """The listed methods first, in this order, the others after them as they were:
    ``sort_order`` becomes each one's position. 422 for an unknown or repeated id."""
    methods = await all_methods(app, session, with_groups=False)
    known = {method.id for method in methods}
    errors = []
    for index, method_id in enumerate(method_ids):
        if method_id not in known:
            errors.append(
                _invalid(["method_ids", index], method_id, f"Payment method not found: {method_id}")
            )
        elif method_id in method_ids[:index]:
            errors.append(_invalid(["method_ids", index], method_id, f"Repeated payment method: {method_id}"))
    if errors:
        raise RequestValidationError(errors)
    order = [method.id for method in methods]
    await _ensure_rows(session, methods, order)
    rows = await _locked_rows(session, order)
    chosen = set(method_ids)
    listed_first = [*method_ids, *(method_id for method_id in order if method_id not in chosen)]
    now = utcnow()
    for position, method_id in enumerate(listed_first):
        row = rows[method_id]
        if row.sort_order != position:
            row.sort_order, row.updated_at = position, now
            session.add(row)
    await session.flush()
    return await all_methods(app, session)
