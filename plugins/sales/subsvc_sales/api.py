"""What other plugins may use of the sales plugin (the rest is private).

The kernel every seller codes against:

- :func:`charge` debits a purchase in the caller's transaction (:class:`Charged`), raising
  :class:`InsufficientFunds` (nothing changed; :func:`payment_required` is its 402 answer) or
  :class:`PriceChanged` (the quoted personal discount is gone: roll back, 409).
- :func:`save_cart` / :func:`drop_cart` keep or forget what a user wanted to buy
  (:data:`CartMode`); :func:`payment_required_with_cart` saves and commits the cart of a
  purchase the balance did not cover and gives its 402 answer; after a top-up the sellers
  complete their carts through the ``sales_complete_cart`` hook (:mod:`subsvc_sales.hookspecs`).
- :class:`SalesSettings`: the plugin's settings (``SalesSettings.of(app)``), among them
  ``TARIFF_SWITCH_UPGRADE_ENABLED`` / ``TARIFF_SWITCH_DOWNGRADE_ENABLED``, which the renewals
  plugin's tariff switch obeys.
- :func:`check_not_restricted` (403 when an administrator restricted the user's purchases,
  hook ``sales_purchases_restricted``) and :func:`lock_buyer` (the user's row locked).

The cabinet operations' services, for the mini app (refusals are :class:`SalesError`, an
``HTTPError`` with ``status`` and ``detail``, the cabinet's answer; a 402 is the kernel's
``HTTPError`` from :func:`payment_required`): :func:`purchase_options`,
:func:`preview_purchase`, :func:`submit_purchase`, :func:`purchase_tariff`,
:func:`trial_info`, :func:`activate_trial`, with their request and answer models (the
options' :class:`TariffOption` and :class:`PeriodOption` among them).
"""

from __future__ import annotations

from subsvc_sales.carts import CartMode, drop_cart, payment_required_with_cart, save_cart
from subsvc_sales.classic import preview_purchase, submit_purchase
from subsvc_sales.common import SalesError, check_not_restricted, lock_buyer
from subsvc_sales.kernel import Charged, InsufficientFunds, PriceChanged, charge, payment_required
from subsvc_sales.options import purchase_options
from subsvc_sales.schemas import (
    ClassicPurchaseOptions,
    PeriodOption,
    PurchasePreview,
    PurchasePreviewRequest,
    PurchaseResponse,
    PurchaseSelectionRequest,
    PurchaseTariffResponse,
    TariffOption,
    TariffPurchaseRequest,
    TariffsPurchaseOptions,
    TrialActivateRequest,
    TrialInfoResponse,
)
from subsvc_sales.settings import SalesSettings
from subsvc_sales.tariff_purchase import purchase_tariff
from subsvc_sales.trial import activate_trial, trial_info

PurchaseTariffRequest = TariffPurchaseRequest

__all__ = [
    "CartMode",
    "Charged",
    "ClassicPurchaseOptions",
    "InsufficientFunds",
    "PeriodOption",
    "PriceChanged",
    "PurchasePreview",
    "PurchasePreviewRequest",
    "PurchaseResponse",
    "PurchaseSelectionRequest",
    "PurchaseTariffRequest",
    "PurchaseTariffResponse",
    "SalesError",
    "SalesSettings",
    "TariffOption",
    "TariffPurchaseRequest",
    "TariffsPurchaseOptions",
    "TrialActivateRequest",
    "TrialInfoResponse",
    "activate_trial",
    "charge",
    "check_not_restricted",
    "drop_cart",
    "lock_buyer",
    "payment_required",
    "payment_required_with_cart",
    "preview_purchase",
    "purchase_options",
    "purchase_tariff",
    "save_cart",
    "submit_purchase",
    "trial_info",
]
