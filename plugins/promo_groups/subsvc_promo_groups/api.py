"""What other plugins may use of the promo groups plugin (the rest is private).

:class:`PromoGroup`, the ORM model, for reading and joining; :func:`find_group` and
:func:`ensure_default_group` (the group new users join).
"""

from __future__ import annotations

from subsvc_promo_groups.models import PromoGroup
from subsvc_promo_groups.service import ensure_default_group, find_group

__all__ = [
    "PromoGroup",
    "ensure_default_group",
    "find_group",
]
