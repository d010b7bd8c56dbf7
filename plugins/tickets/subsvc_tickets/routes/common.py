"""What the cabinet areas share: list paging parameters."""

from __future__ import annotations

from typing import Annotated

from subsvc.api import Query

PageNumber = Annotated[int, Query(ge=1, description="Page number")]
PerPage = Annotated[int, Query(ge=1, le=100, description="Items per page")]
StatusFilter = Annotated[str | None, Query(description="Filter by status")]
PriorityFilter = Annotated[str | None, Query(description="Filter by priority")]
UserFilter = Annotated[int | None, Query(description="Filter by user ID")]
