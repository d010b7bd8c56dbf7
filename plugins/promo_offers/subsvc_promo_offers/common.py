"""Small pieces the plugin's services share: id ranges, the user summary, counted pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel.ext.asyncio.session import AsyncSession
from subsvc_users.models import User

from subsvc_promo_offers.schemas import OfferUserInfo

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_OFFSET = 2**62  # beyond any table; larger offsets would overflow the database's integer
USERS = User.__table__


def fits_int32(value: int) -> bool:
    """Row ids are 32-bit integers: a larger number names nothing (and must not reach the driver)."""
    return -INT32_MAX - 1 <= value <= INT32_MAX


def fits_int64(value: int) -> bool:
    return -INT64_MAX - 1 <= value <= INT64_MAX


def id_chunk(session: AsyncSession) -> int:
    """Ids per statement: PostgreSQL takes them as one array parameter; SQLite binds each one
    (and allows some thirty thousand variables)."""
    return 10_000 if session.get_bind().dialect.name == "postgresql" else 1_000


def dialect_insert(session: AsyncSession, table: Any) -> Any:
    """``INSERT`` of the session's dialect (for ``ON CONFLICT``)."""
    dialect = session.get_bind().dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


def full_name(first_name: str | None, last_name: str | None, username: str | None) -> str | None:
    """First and last name, else the username."""
    name = " ".join(part for part in (first_name, last_name) if part).strip()
    return name or username


USER_COLUMNS = (
    USERS.c.id.label("u_id"),
    USERS.c.messenger_id.label("u_messenger_id"),
    USERS.c.email.label("u_email"),
    USERS.c.username.label("u_username"),
    USERS.c.first_name.label("u_first_name"),
    USERS.c.last_name.label("u_last_name"),
)


def user_info(row: Mapping[str, Any]) -> OfferUserInfo | None:
    """The user summary from a row carrying :data:`USER_COLUMNS` (``None`` without a user)."""
    if row["u_id"] is None:
        return None
    return OfferUserInfo(
        id=row["u_id"],
        messenger_id=row["u_messenger_id"],
        email=row["u_email"],
        username=row["u_username"],
        first_name=row["u_first_name"],
        last_name=row["u_last_name"],
        full_name=full_name(row["u_first_name"], row["u_last_name"], row["u_username"]),
    )


async def counted_page(
    session: AsyncSession, query: Select[Any], conditions: Sequence[Any], table: Any, limit: int, offset: int
) -> tuple[int, list[Mapping[str, Any]]]:
    """How many rows of ``table`` match ``conditions``, and one window of ``query`` (plain
    rows). A window that ends before ``limit`` gives the total itself; only a full or empty
    window costs a count."""
    rows: list[Mapping[str, Any]] = []
    if offset <= MAX_OFFSET:
        rows = list((await session.exec(query.limit(limit).offset(offset))).mappings().all())
    if (rows and len(rows) < limit) or (not rows and offset == 0):
        return offset + len(rows), rows
    count = await session.exec(select(func.count()).select_from(table).where(*conditions))
    return int(count.scalar_one()), rows
