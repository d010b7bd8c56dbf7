"""The list envelope most list endpoints use: ``{items, total, limit, offset}``."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel

from subsvc.api.params import Query

T = TypeVar("T")

Limit = Annotated[int, Query(ge=1, le=200)]
Offset = Annotated[int, Query(ge=0)]


class Page(BaseModel, Generic[T]):
    """A page of a list: the items, how many there are in all, and the window asked for."""

    items: list[T]
    total: int
    limit: int
    offset: int
