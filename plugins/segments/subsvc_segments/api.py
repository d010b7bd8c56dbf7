"""What other plugins may use of the segments plugin (the rest is private).

Audiences: :func:`resolve` a segment's conditions, then :func:`count_recipients`,
:func:`iter_recipients` or :func:`user_ids_query`; :func:`reachable_conditions` limits them
to users the messenger can reach; :func:`has_subscription` and the subscription criteria.
"""

from __future__ import annotations

from subsvc_segments.catalogue import LIVE_SUBSCRIPTION, SUBSCRIPTIONS, has_subscription
from subsvc_segments.recipients import (
    count_recipients,
    iter_recipients,
    reachable_conditions,
    resolve,
    user_ids_query,
)

__all__ = [
    "LIVE_SUBSCRIPTION",
    "SUBSCRIPTIONS",
    "count_recipients",
    "has_subscription",
    "iter_recipients",
    "reachable_conditions",
    "resolve",
    "user_ids_query",
]
