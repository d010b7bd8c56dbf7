"""What other plugins may use of the tariffs plugin (the rest is private).

- :class:`Tariff`, the ORM model, for reading and joining (only this plugin writes it).
- Reading: :func:`find_tariff` (one, by id), :func:`list_tariffs` (display order),
  :func:`promo_group_ids` (the groups allowed to buy each tariff, one query) and
  :func:`allowed` (may a member of a group buy it).
- :func:`lock_for_use`: read a tariff with a shared lock before putting it on a
  subscription, so that it cannot be deleted meanwhile.

Prices are the pricing plugin's: nothing here computes one.
"""

from __future__ import annotations

from subsvc_tariffs.models import Tariff
from subsvc_tariffs.service import allowed, find_tariff, list_tariffs, lock_for_use, promo_group_ids

__all__ = [
    "Tariff",
    "allowed",
    "find_tariff",
    "list_tariffs",
    "lock_for_use",
    "promo_group_ids",
]
