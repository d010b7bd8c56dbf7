"""Messenger notices, sent by jobs once the change commits: the administrators hear of new
applications and withdrawal requests, the user of every decision."""

from __future__ import annotations

from subsvc.testing import ADMIN_MESSENGER_ID, USER_MESSENGER_ID

WITHDRAWAL = "/cabinet/referral/withdrawal"


async def test_decisions_reach_the_user_and_requests_the_admins(
    member, admin, enabled, earn, fake_bot_api, wait_for
):
    application = (await member.post("/cabinet/referral/partner/apply", json={"company_name": "Acme"})).json()
    await wait_for(lambda: fake_bot_api.sent_to(ADMIN_MESSENGER_ID))
    assert "Acme" in fake_bot_api.sent_to(ADMIN_MESSENGER_ID)[0]["text"]
    await admin.post(
        f"/cabinet/admin/partners/applications/{application['id']}/approve", json={"commission_percent": 12}
    )
    await wait_for(lambda: fake_bot_api.sent_to(USER_MESSENGER_ID))
    assert "12%" in fake_bot_api.sent_to(USER_MESSENGER_ID)[0]["text"]

    await earn(2, 5000)
    created = (
        await member.post(
            f"{WITHDRAWAL}/create", json={"amount_kopeks": 2500, "payment_details": "Card 4000"}
        )
    ).json()
    await wait_for(lambda: len(fake_bot_api.sent_to(ADMIN_MESSENGER_ID)) == 2)
    assert "25 ₽" in fake_bot_api.sent_to(ADMIN_MESSENGER_ID)[1]["text"]
    await admin.post(f"/cabinet/admin/withdrawals/{created['id']}/reject", json={"comment": "wrong card"})
    await wait_for(lambda: len(fake_bot_api.sent_to(USER_MESSENGER_ID)) == 2)
    assert "wrong card" in fake_bot_api.sent_to(USER_MESSENGER_ID)[1]["text"]


async def test_a_refused_request_tells_nobody(member, enabled, fake_bot_api):
    refused = await member.post(
        f"{WITHDRAWAL}/create", json={"amount_kopeks": 2500, "payment_details": "Card 4000"}
    )
    assert refused.status_code == 400
    assert fake_bot_api.sent_to(ADMIN_MESSENGER_ID) == []
