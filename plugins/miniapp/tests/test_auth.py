"""The init data check of every operation: signed by our bot's token, at most a day old, of a
registered user who is not blocked; and the maintenance notice."""

from __future__ import annotations

import pytest
from subsvc_miniapp.settings import MiniAppSettings

STATUS = "/maintenance/status"
UNAUTHORIZED = "unauthorized"


async def test_valid_init_data_of_a_registered_user_is_accepted(miniapp, make_user):
    me = await make_user()
    answer = await miniapp(STATUS, me)
    assert (answer.status_code, answer.json()) == (200, {"isActive": False, "message": None, "reason": None})


async def test_init_data_is_accepted_under_either_name(miniapp, make_user):
    me = await make_user()
    assert (await miniapp(STATUS, me, key="init_data")).status_code == 200


FORGERIES = {
    "other-bot": (lambda sign: sign(42, token="999:someone-elses-bot"), "Invalid init data signature"),
    "tampered": (lambda sign: sign(42).replace("Mia", "Eve"), "Invalid init data signature"),
    "garbage": (lambda sign: "not a query string", "Invalid init data signature"),
    "stale": (lambda sign: sign(42, age=86400 + 60), "Init data is too old"),
    "empty": (lambda sign: "", "Missing initData"),
}


@pytest.mark.parametrize("case", FORGERIES)
async def test_forged_stale_or_empty_init_data_is_401(miniapp, signed, case):
    make, text = FORGERIES[case]
    data = make(signed)
    answer = await miniapp(STATUS, data)
    assert (answer.status_code, answer.json()) == (401, {"detail": text})


async def test_a_day_old_init_data_is_still_accepted_and_the_age_is_a_setting(
    miniapp, signed, change_settings
):
    assert (await miniapp(STATUS, signed(42, age=86400 - 60))).status_code == 200
    change_settings(MiniAppSettings, MINIAPP_INIT_DATA_MAX_AGE_SECONDS=60)
    assert (await miniapp(STATUS, signed(42, age=120))).json() == {"detail": "Init data is too old"}


async def test_missing_init_data_is_a_validation_error(anon_client):
    answer = await anon_client.post("/miniapp/maintenance/status", json={})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "initData"]


async def test_init_data_without_a_user_is_400(miniapp, signed):
    answer = await miniapp(STATUS, signed(None))
    assert (answer.status_code, answer.json()) == (400, {"detail": "Invalid Messenger user payload"})


@pytest.mark.no_bot_token
async def test_without_a_bot_token_init_data_cannot_be_checked(miniapp, signed):
    answer = await miniapp(STATUS, signed(42))
    assert (answer.status_code, answer.json()) == (503, {"detail": "Bot not configured"})


async def test_maintenance_is_reported_with_its_message_and_reason(miniapp, signed, change_settings):
    change_settings(MiniAppSettings, MAINTENANCE_MODE=True, MAINTENANCE_REASON="panel upgrade")
    answer = await miniapp(STATUS, signed(42))
    assert answer.json() == {
        "isActive": True,
        "message": "Ведутся технические работы. Попробуйте позже.",
        "reason": "panel upgrade",
    }


async def test_the_mini_app_registers_nobody_and_refuses_blocked_or_deleted_users(miniapp, signed, make_user):
    unknown = await miniapp("/promo-codes/activate", signed(987_654_321), code="X")
    assert (unknown.status_code, unknown.json()["detail"]) == (
        404,
        {"code": "user_not_found", "message": "User not found"},
    )
    for status in ("blocked", "deleted"):
        refused = await miniapp("/promo-codes/activate", await make_user(status=status), code="X")
        assert (refused.status_code, refused.json()["detail"]["code"]) == (403, "account_blocked")


async def test_a_forged_init_data_is_refused_as_an_object_where_the_operation_answers_objects(
    miniapp, signed
):
    answer = await miniapp("/promo-codes/activate", signed(42, token="1:x"), code="X")
    assert (answer.status_code, answer.json()) == (
        401,
        {"detail": {"code": "unauthorized", "message": "Invalid init data signature"}},
    )
