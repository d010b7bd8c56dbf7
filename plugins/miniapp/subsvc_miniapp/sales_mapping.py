"""The mini app's bodies turned into the sales plugin's requests, its answers and refusals
into the mini app's (no selling rule here: the sales plugin has them all)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from subsvc_sales.api import PeriodOption, PurchaseSelectionRequest

from subsvc.api import HTTPError, from_attributes
from subsvc_miniapp.refusals import as_object
from subsvc_miniapp.sales_schemas import MiniAppSubscriptionPurchasePreviewRequest, MiniAppTariffPeriod

INSUFFICIENT_TRIAL = "Insufficient balance"
# the sales plugin's texts that have a code of their own in the mini app (else: the status's)
CODES = {
    "You already have an active subscription": "subscription_exists",
    "Trial already used": "trial_unavailable",
    "Trial is not available for your account type": "trial_unavailable",
    "Tariff not found or inactive": "tariff_not_found",
    "This tariff is not available for your promo group": "tariff_unavailable",
    "Invalid or missing subscription period": "invalid_period",
    "Some selected servers are not available": "invalid_selection",
}
# each selection field: the body's spellings, then the ``selection`` object's, first given wins
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "period_id": (("periodId", "period"), ("period_id", "periodId", "period")),
    "period_days": (("periodDays",), ("period_days", "periodDays")),
    "traffic_value": (
        ("trafficValue", "traffic", "trafficGb"),
        ("traffic_value", "trafficValue", "traffic", "traffic_gb", "trafficGb"),
    ),
    "servers": (
        ("servers", "countries", "serverUuids"),
        ("servers", "countries", "server_uuids", "serverUuids", "squads"),
    ),
    "devices": (("devices", "deviceLimit"), ("devices", "device_limit", "deviceLimit")),
}


def refused(error: HTTPError) -> HTTPError:
    """A sales refusal in the object style: its own code for the texts that have one, a paid
    trial the balance cannot pay 402 ``insufficient_funds``, the 402 ``{code, ...}`` as it is."""
    detail = error.detail
    if isinstance(detail, str):
        if detail.startswith(INSUFFICIENT_TRIAL):
            return HTTPError(402, {"code": "insufficient_funds", "message": detail})
        if detail in CODES:
            return HTTPError(error.status_code, {"code": CODES[detail], "message": detail})
    return as_object(error.status_code, detail)


def _first(values: list[Any]) -> Any:
    return next((value for value in values if value is not None), None)


def selection(body: MiniAppSubscriptionPurchasePreviewRequest) -> PurchaseSelectionRequest:
    """The cabinet's selection of the body (a period id of bare days, ``30``, is ``days:30``);
    a field out of the cabinet's bounds is 400 ``invalid_selection``."""
    given = body.selection or {}
    wanted = {
        name: _first([getattr(body, key) for key in own] + [given.get(key) for key in inside])
        for name, (own, inside) in FIELDS.items()
    }
    period_id = wanted["period_id"]
    if isinstance(period_id, str) and period_id.strip().isdigit():
        wanted["period_id"] = f"days:{period_id.strip()}"
    try:
        return PurchaseSelectionRequest.model_validate(wanted)
    except ValidationError as invalid:
        message = invalid.errors()[0]["msg"]
        raise HTTPError(400, {"code": "invalid_selection", "message": message}) from None


def tariff_period(option: PeriodOption) -> MiniAppTariffPeriod:
    """A period of the sales plugin's tariff options as the mini app lists it."""
    return from_attributes(MiniAppTariffPeriod, option, discount_percent=option.discount_percent or 0)
