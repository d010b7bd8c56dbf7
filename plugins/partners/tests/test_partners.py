"""The partner programme over HTTP: applying, the administrator's decisions, the individual
commission percent (which referrals reads through its hook), revocation, the settings."""

from __future__ import annotations

from subsvc.services import services

PARTNER = "/cabinet/referral/partner"
ADMIN = "/cabinet/admin/partners"
APPLICATION = {"company_name": "Acme", "website_url": "https://acme.test", "desired_commission_percent": 20}


async def hook_percent(app, db, user_id):
    async with db.session() as session:
        return await services(app).plugins.hook.referral_commission_percent(session=session, user_id=user_id)


async def test_apply_approve_revoke(app, db, member, admin, member_user):
    assert (await member.get(f"{PARTNER}/status")).json() == {
        "partner_status": "none",
        "commission_percent": None,
        "latest_application": None,
        "campaigns": [],
    }
    applied = await member.post(f"{PARTNER}/apply", json=APPLICATION)
    assert applied.status_code == 200, applied.text
    assert applied.json()["status"] == "pending" and applied.json()["company_name"] == "Acme"
    twice = await member.post(f"{PARTNER}/apply", json={})
    assert twice.status_code == 400 and twice.json()["detail"] == "У вас уже есть заявка на рассмотрении"

    listed = (await admin.get(f"{ADMIN}/applications", params={"status": "pending"})).json()
    assert listed["total"] == 1 and listed["items"][0]["username"] == "member"
    application_id = listed["items"][0]["id"]
    approved = await admin.post(
        f"{ADMIN}/applications/{application_id}/approve",
        json={"commission_percent": 15, "comment": "welcome"},
    )
    assert approved.status_code == 200, approved.text
    again = await admin.post(f"{ADMIN}/applications/{application_id}/reject", json={})
    assert again.status_code == 400 and again.json()["detail"] == "Заявка уже обработана"

    status = (await member.get(f"{PARTNER}/status")).json()
    assert (status["partner_status"], status["commission_percent"]) == ("approved", 15)
    assert status["latest_application"]["approved_commission_percent"] == 15
    assert status["latest_application"]["admin_comment"] == "welcome"
    assert await hook_percent(app, db, 2) == 15
    already = await member.post(f"{PARTNER}/apply", json={})
    assert already.status_code == 400 and already.json()["detail"] == "Вы уже являетесь партнёром"

    changed = await admin.patch(f"{ADMIN}/2/commission", json={"commission_percent": 25})
    assert changed.json() == {"success": True, "commission_percent": 25}
    assert await hook_percent(app, db, 2) == 25
    partners = (await admin.get(ADMIN)).json()
    assert partners["total"] == 1 and partners["items"][0]["commission_percent"] == 25
    detail = (await admin.get(f"{ADMIN}/2")).json()
    assert (detail["partner_status"], detail["commission_percent"]) == ("approved", 25)
    assert (await admin.get(f"{ADMIN}/stats")).json()["total_partners"] == 1

    assert (await admin.post(f"{ADMIN}/2/revoke")).json() == {"success": True}
    assert (await member.get(f"{PARTNER}/status")).json()["partner_status"] == "none"
    assert await hook_percent(app, db, 2) is None
    revoked = await admin.post(f"{ADMIN}/2/revoke")
    assert revoked.status_code == 400 and revoked.json()["detail"] == "Пользователь не является партнёром"


async def test_a_rejected_user_may_apply_again(member, admin, member_user):
    first = (await member.post(f"{PARTNER}/apply", json={})).json()["id"]
    assert (
        await admin.post(f"{ADMIN}/applications/{first}/reject", json={"comment": "later"})
    ).status_code == 200
    status = (await member.get(f"{PARTNER}/status")).json()
    assert status["partner_status"] == "rejected" and status["latest_application"]["admin_comment"] == "later"
    assert (await member.post(f"{PARTNER}/apply", json={})).status_code == 200
    assert (await member.get(f"{PARTNER}/status")).json()["partner_status"] == "pending"


async def test_refusals(member, admin, member_user):
    missing = await admin.post(f"{ADMIN}/applications/999/approve", json={"commission_percent": 10})
    assert missing.status_code == 400 and missing.json()["detail"] == "Заявка не найдена"
    assert (
        await admin.post(f"{ADMIN}/applications/1/approve", json={"commission_percent": 0})
    ).status_code == 422
    not_partner = await admin.patch(f"{ADMIN}/2/commission", json={"commission_percent": 10})
    assert (
        not_partner.status_code == 400
        and not_partner.json()["detail"] == "Пользователь не является партнёром"
    )
    assert (await admin.patch(f"{ADMIN}/999/commission", json={"commission_percent": 10})).status_code == 404
    assert (await admin.get(f"{ADMIN}/999")).status_code == 404
    stats = await member.get(f"{PARTNER}/campaigns/1/stats")
    assert stats.status_code == 403 and stats.json()["detail"] == "Partner status required"
    assert (await member.get(f"{ADMIN}/applications")).status_code == 403


async def test_settings_are_stored(admin, admin_user):
    before = (await admin.get(f"{ADMIN}/settings")).json()
    assert before["withdrawal_enabled"] is False and before["withdrawal_min_amount_kopeks"] == 100000
    after = await admin.patch(
        f"{ADMIN}/settings",
        json={
            "withdrawal_cooldown_days": 7,
            "withdrawal_requisites_text": "IBAN",
            "referral_program_enabled": False,
        },
    )
    assert after.status_code == 200, after.text
    got = (await admin.get(f"{ADMIN}/settings")).json()
    assert (got["withdrawal_cooldown_days"], got["withdrawal_requisites_text"]) == (7, "IBAN")
    assert got["referral_program_enabled"] is False and got["withdrawal_min_amount_kopeks"] == 100000
    assert (await admin.patch(f"{ADMIN}/settings", json={"withdrawal_cooldown_days": 366})).status_code == 422


async def test_referral_settings_go_through_referrals(admin, admin_user):
    changed = await admin.patch(
        f"{ADMIN}/settings",
        json={"first_payment_commission_percent": 40, "recurring_commission_tiers": "0:10,5:20"},
    )
    assert changed.status_code == 200, changed.text
    got = (await admin.get(f"{ADMIN}/settings")).json()
    assert (got["first_payment_commission_percent"], got["recurring_commission_tiers"]) == (40, "0:10,5:20")
    bad = await admin.patch(
        f"{ADMIN}/settings", json={"recurring_commission_tiers": "ten", "withdrawal_cooldown_days": 3}
    )
    assert bad.status_code == 400
    assert (await admin.get(f"{ADMIN}/settings")).json()["withdrawal_cooldown_days"] == 30  # nothing stored


async def test_referrals_hears_the_partners(app, db, member, admin, member_user):
    application = (await member.post(f"{PARTNER}/apply", json={})).json()["id"]
    async with db.session() as session:
        assert await services(app).plugins.hook.referral_partner_ids(session=session) == set()
    await admin.post(f"{ADMIN}/applications/{application}/approve", json={"commission_percent": 10})
    async with db.session() as session:
        assert await services(app).plugins.hook.referral_partner_ids(session=session) == {2}
