"""What other plugins may use of the users plugin (the rest of ``subsvc_users`` is private).

- :class:`User`, the ORM model: for reading and joining (``USERS`` is its table). Only this
  plugin writes it: through :func:`create_user`, :func:`update_user`,
  :func:`set_referrer` (the referrer link, refusing cycles), :func:`record_paid_subscription`,
  :func:`delete_user` and the narrow rules below. Columns
  other plugins own conceptually (still in this table, written only as said):

  - ``auth_type``, ``email``, ``email_verified``, ``email_verified_at``,
    ``email_verification_source``, ``password_hash``: the cabinet sign-ups (cabinet_email,
    cabinet_oauth), through :func:`create_cabinet_user`, :func:`verify_email`,
    :func:`set_password_hash`; ``cabinet_last_login``: cabinet_auth's sessions, through
    :func:`record_cabinet_login`; a messenger id linked after sign-up: cabinet_oauth, through
    :func:`link_messenger_id`. :func:`touch` locks a user's row for a check-then-change.
  - ``balance_kopeks`` and ``has_made_first_topup``: billing's, changed (with ``updated_at``)
    only by its conditional UPDATE of the balance.
  - ``messenger_blocked_at``: segments', written from the messenger client's answers.
- Records: :func:`get_user` / :func:`find_user_by_messenger_id` find a user,
  :func:`user_record` and :func:`record_rows` / :func:`records_from_rows` build the
  ``UserResponse`` other plugins answer with, the ``record_*`` helpers select its columns.
- Listing: :func:`filters` and :func:`count_query` (the users list's conditions),
  :func:`count_cache` (its cached counts).
- Extension point: ``user_record_columns`` returns :class:`RecordColumns`.
"""

from __future__ import annotations

from subsvc_users.accounts import (
    create_cabinet_user,
    link_messenger_id,
    record_cabinet_login,
    set_password_hash,
    touch,
    verify_email,
)
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
    SubscriptionFields,
    SubscriptionSummary,
    UserCreateRequest,
    UserResponse,
    UserStatus,
    UserSummary,
    UserUpdateRequest,
)
from subsvc_users.service import (
    REFERRER_CYCLE,
    REFERRER_IS_SELF,
    UserRuleError,
    count_query,
    create_user,
    delete_user,
    filters,
    record_paid_subscription,
    set_referrer,
    update_user,
)

__all__ = [
    "RECORD_COLUMNS",
    "REFERRER_CYCLE",
    "REFERRER_IS_SELF",
    "USERS",
    "Columns",
    "PathId",
    "PromoGroupSummary",
    "RecordColumns",
    "SubscriptionFields",
    "SubscriptionSummary",
    "User",
    "UserCreateRequest",
    "UserResponse",
    "UserRuleError",
    "UserStatus",
    "UserSummary",
    "UserUpdateRequest",
    "count_cache",
    "count_query",
    "create_cabinet_user",
    "create_user",
    "delete_user",
    "filters",
    "find_user_by_messenger_id",
    "get_user",
    "link_messenger_id",
    "path_id_subquery",
    "record_cabinet_login",
    "record_columns",
    "record_paid_subscription",
    "record_rows",
    "record_select",
    "records_from_rows",
    "set_password_hash",
    "set_referrer",
    "touch",
    "update_user",
    "user_record",
    "verify_email",
]
