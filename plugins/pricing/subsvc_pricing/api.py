"""What other plugins may use of the pricing plugin: everything that computes a price.

- The terms (frozen snapshots, :mod:`subsvc_pricing.model`): :class:`Buyer` with its
  :class:`GroupDiscounts` and :class:`PersonalDiscount`, :class:`TariffTerms`,
  :class:`ClassicTables`, :class:`ClassicSelection`, :class:`ServerOffer`; the answers:
  :class:`Quote` of :class:`Line` s, :class:`PeriodPrice`, :class:`SwitchQuote`;
  :class:`PricingError` (a selection that cannot be priced: message, status, code).
- The engine (:mod:`subsvc_pricing.engine`, pure, the clock passed in): the rules
  (:func:`apply_discount`, :func:`months_of`, :func:`price_per_month`, :func:`group_percent`,
  :func:`closest_period_percent`, :func:`add_on_days_left`, :func:`prorate`, :func:`finish`,
  :func:`tier_price`, :func:`price_label`) and the prices (:func:`tariff_purchase`,
  :func:`tariff_renewal`, :func:`tariff_periods`, :func:`daily_charge`,
  :func:`classic_purchase`, :func:`classic_renewal`, :func:`classic_renewal_periods`, :func:`devices_addon`,
  :func:`traffic_package`, :func:`traffic_package_switch`, :func:`servers_addon`,
  :func:`tariff_switch`).
- The loaders (:mod:`subsvc_pricing.context`, reads only): :func:`sales_mode`,
  :func:`classic_tables`, :func:`buyer_of`, :func:`guest`, :func:`tariff_terms`,
  :func:`terms_of`, :func:`server_prices`; :func:`consume_personal_discount` (the debit of a
  purchase whose quote :attr:`Quote.uses_personal`).
"""

from __future__ import annotations

from subsvc_pricing import context, engine, model
from subsvc_pricing.context import *  # noqa: F403
from subsvc_pricing.engine import *  # noqa: F403
from subsvc_pricing.model import *  # noqa: F403
from subsvc_pricing.settings import PricingSettings

__all__ = ["PricingSettings"]
__all__ += context.__all__
__all__ += engine.__all__
__all__ += model.__all__
