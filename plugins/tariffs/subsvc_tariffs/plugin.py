"""Plugin `tariffs`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_tariffs import hooks, hookspecs
from subsvc_tariffs.models import Tariff, TariffPromoGroup
from subsvc_tariffs.routes import CREATED, DELETED, UPDATED, router
from subsvc_tariffs.schemas import TariffEvent
from subsvc_tariffs.settings import TariffsSettings

plugin = Plugin(
    models=[Tariff, TariffPromoGroup],
    endpoints=[router],
    permissions={"tariffs": ["read", "create", "edit", "delete"]},
    tags={
        "Cabinet Admin Tariffs": "Tariffs: the catalogue of subscription plans (period prices, limits, "
        "servers, promo groups)."
    },
    settings=TariffsSettings,
    events={CREATED: TariffEvent, UPDATED: TariffEvent, DELETED: TariffEvent},
    hookspecs=hookspecs,
    hooks=[hooks],
)
