"""Plugin `tariffs`: what it contributes to subsvc."""

from typing import Any

from subsvc.manifest import Plugin
from subsvc_tariffs import hooks, hookspecs
from subsvc_tariffs.models import Tariff, TariffPromoGroup
from subsvc_tariffs.routes import CREATED, DELETED, NOT_FOUND, UPDATED, router
from subsvc_tariffs.schemas import TariffEvent
from subsvc_tariffs.service import TariffInUse, TariffNotFound, TariffRuleError
from subsvc_tariffs.settings import TariffsSettings


def _in_use(exc: TariffInUse) -> tuple[int, Any]:
    return 409, f"Tariff is used by {exc.count} subscription(s); deactivate it instead of deleting it"


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
    errors={TariffNotFound: (404, NOT_FOUND), TariffRuleError: 400, TariffInUse: _in_use},
)
