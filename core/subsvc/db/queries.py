"""Statement pieces that read the same on SQLite and PostgreSQL but cost less on the latter."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, any_, bindparam
from sqlalchemy.dialects.postgresql import ARRAY


def in_list(column: ColumnElement[Any], name: str, dialect: str) -> ColumnElement[bool]:
    """``column`` is one of the list passed as parameter ``name``.

    On PostgreSQL one array parameter (``column = ANY(:name)``): the statement text is the same
    for every length, so it is compiled and prepared once. Elsewhere an expanding ``IN``, which
    is rendered for each call. Build statements that use it once per dialect.
    """
    if dialect == "postgresql":
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))
