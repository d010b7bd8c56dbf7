"""The tables the plugin's statements name, its own and those of other plugins it joins, typed
``Table`` (read from the metadata: SQLModel declares no ``__table__`` for type checkers)."""

from __future__ import annotations

from sqlalchemy import Table
from sqlmodel import SQLModel
from subsvc_billing.api import Transaction
from subsvc_promo_groups.api import PromoGroup
from subsvc_subscriptions.api import Subscription
from subsvc_users.api import User

from subsvc_promo_offers.models import (
    ActiveDiscount,
    DiscountOffer,
    OfferBroadcast,
    OfferBroadcastRecipient,
    PromoOfferLog,
    PromoOfferTemplate,
)

OFFERS: Table = SQLModel.metadata.tables[DiscountOffer.__tablename__]
LOGS: Table = SQLModel.metadata.tables[PromoOfferLog.__tablename__]
TEMPLATES: Table = SQLModel.metadata.tables[PromoOfferTemplate.__tablename__]
DISCOUNTS: Table = SQLModel.metadata.tables[ActiveDiscount.__tablename__]
BROADCASTS: Table = SQLModel.metadata.tables[OfferBroadcast.__tablename__]
RECIPIENTS: Table = SQLModel.metadata.tables[OfferBroadcastRecipient.__tablename__]
USERS: Table = SQLModel.metadata.tables[User.__tablename__]
SUBSCRIPTIONS: Table = SQLModel.metadata.tables[Subscription.__tablename__]
GROUPS: Table = SQLModel.metadata.tables[PromoGroup.__tablename__]
TRANSACTIONS: Table = SQLModel.metadata.tables[Transaction.__tablename__]
