"""What other plugins may use of the users plugin (the rest of ``subsvc_users`` is private).

- :class:`User`, the ORM model: for reading and joining (``USERS`` is its table). Only this
  plugin writes it: through :func:`create_user` and :func:`update_user`.
- Records: :func:`get_user` / :func:`find_user_by_messenger_id` find a user,
  :func:`user_record` and :func:`record_rows` / :func:`records_from_rows` build the
  ``UserResponse`` other plugins answer with, the ``record_*`` helpers select its columns.
- Listing: :func:`filters` and :func:`count_query` (the users list's conditions),
  :func:`count_cache` (its cached counts).
- Extension point: ``user_record_columns`` returns :class:`RecordColumns`.
"""

from __future__ import annotations

from subsvc_users.counts import count_cache
from subsvc_users.hookspecs import RecordColumns
from subsvc_users.models import User
from subsvc_users.records import (
    RECORD_COLUMNS,
    USERS,
    Columns,
    PathId,
    find_user_by_messenger_id,
    get_user,
    path_id_subquery,
    record_columns,
    record_rows,
    record_select,
    records_from_rows,
    user_record,
)
from subsvc_users.schemas import (
    PromoGroupSummary,
    SubscriptionSummary,
    UserCreateRequest,
    UserResponse,
    UserStatus,
    UserUpdateRequest,
)
from subsvc_users.service import UserRuleError, count_query, create_user, filters, update_user

__all__ = [
    "RECORD_COLUMNS",
    "USERS",
    "Columns",
    "PathId",
    "PromoGroupSummary",
    "RecordColumns",
    "SubscriptionSummary",
    "User",
    "UserCreateRequest",
    "UserResponse",
    "UserRuleError",
    "UserStatus",
    "UserUpdateRequest",
    "count_cache",
    "count_query",
    "create_user",
    "filters",
    "find_user_by_messenger_id",
    "get_user",
    "path_id_subquery",
    "record_columns",
    "record_rows",
    "record_select",
    "records_from_rows",
    "update_user",
    "user_record",
]
