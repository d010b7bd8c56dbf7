"""``Rows``: a SELECT of any number of columns or entities that ``session.exec`` takes.

``sqlmodel.select`` is typed for at most four columns, and ``sqlalchemy.select`` gives a
statement ``AsyncSession.exec`` is not typed to take; ``Rows(*columns)`` is sqlmodel's own
``Select`` (the session flushes first and answers rows, as for any ORM select)::

    query = Rows(USERS.c.id, USERS.c.email, ...).where(...)
    rows = (await session.exec(query, params=params)).all()
"""

from __future__ import annotations

from typing import Any

from sqlmodel.sql.expression import Select

Rows = Select[*tuple[Any, ...]]

__all__ = ["Rows"]
