"""Names that other plugins keep: tariff names, through the ``cabinet_admin_tariff_names`` hook."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.applications import Starlette

from subsvc.services import services


async def tariff_names(
    app: Starlette, session: AsyncSession, tariff_ids: Iterable[int | None]
) -> dict[int, str]:
    """``{tariff_id: name}`` of the given tariffs; empty without a plugin keeping tariffs."""
    ids = sorted({tariff_id for tariff_id in tariff_ids if tariff_id is not None})
    if not ids:
        return {}
    found: Mapping[int, str] | None = await services(app).plugins.first_result(
        "cabinet_admin_tariff_names", session=session, tariff_ids=ids
    )
    return dict(found or {})
