"""What other plugins may use of the sales plugin (the rest is private): the kernel every
seller codes against.

- :func:`charge` debits a purchase in the caller's transaction (:class:`Charged`), raising
  :class:`InsufficientFunds` (nothing changed; :func:`payment_required` is its 402 answer) or
  :class:`PriceChanged` (the quoted personal discount is gone: roll back, 409).
- :func:`save_cart` / :func:`drop_cart` keep or forget what a user wanted to buy
  (:data:`CartMode`); after a top-up the sellers complete their carts through the
  ``sales_complete_cart`` hook (:mod:`subsvc_sales.hookspecs`).
"""

from __future__ import annotations

from subsvc_sales.carts import CartMode, drop_cart, save_cart
from subsvc_sales.kernel import Charged, InsufficientFunds, PriceChanged, charge, payment_required

__all__ = [
    "CartMode",
    "Charged",
    "InsufficientFunds",
    "PriceChanged",
    "charge",
    "drop_cart",
    "payment_required",
    "save_cart",
]
