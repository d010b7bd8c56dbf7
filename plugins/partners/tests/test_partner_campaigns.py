"""A partner's campaigns over HTTP: assignment and unassignment with their refusals, the
partner's detail and status listing them with registrations, the partner's campaign stats,
revocation freeing them."""

from __future__ import annotations

from typing import Any

from subsvc_campaigns.api import attribute
from subsvc_referrals.api import ReferralEarning

ADMIN = "/cabinet/admin/partners"
PARTNER = "/cabinet/referral/partner"
CAMPAIGN = {"name": "Spring", "start_parameter": "spring", "bonus_type": "none"}


async def approve(admin: Any, member: Any) -> None:
    assert (await member.post(f"{PARTNER}/apply", json={})).status_code == 200
    approved = await admin.post(f"{ADMIN}/applications/1/approve", json={"commission_percent": 20})
    assert approved.status_code == 200, approved.text


async def test_assign_list_stats_unassign(app, db, client, admin, member, admin_user, member_user, make_user):
    made = await client.post("/campaigns", json=CAMPAIGN)
    assert made.status_code == 201, made.text
    cid = made.json()["id"]
    refused = await admin.post(f"{ADMIN}/{member_user.id}/campaigns/{cid}/assign")
    assert (refused.status_code, refused.json()["detail"]) == (400, "Пользователь не является партнёром")
    await approve(admin, member)
    missing = await admin.post(f"{ADMIN}/{member_user.id}/campaigns/999/assign")
    assert (missing.status_code, missing.json()["detail"]) == (404, "Кампания не найдена")
    for _ in range(2):  # assigning twice is no change
        done = await admin.post(f"{ADMIN}/{member_user.id}/campaigns/{cid}/assign")
        assert (done.status_code, done.json()) == (200, {"success": True})

    newcomer = await make_user()
    async with db.session() as session:
        assert await attribute(app, session, newcomer.id, "spring")
        await session.commit()
    detail = (await admin.get(f"{ADMIN}/{member_user.id}")).json()
    assert [(c["id"], c["start_parameter"], c["registrations_count"]) for c in detail["campaigns"]] == [
        (cid, "spring", 1)
    ]
    status = (await member.get(f"{PARTNER}/status")).json()
    assert [(c["id"], c["bonus_type"], c["registrations_count"]) for c in status["campaigns"]] == [
        (cid, "none", 1)
    ]
    stats = await member.get(f"{PARTNER}/campaigns/{cid}/stats")
    assert stats.status_code == 200, stats.text
    assert (stats.json()["campaign_name"], stats.json()["registrations_count"]) == ("Spring", 1)
    other = await member.get(f"{PARTNER}/campaigns/999/stats")
    assert (other.status_code, other.json()["detail"]) == (404, "Campaign not found or not assigned to you")

    not_theirs = await admin.post(f"{ADMIN}/{admin_user.id}/campaigns/{cid}/unassign")
    assert (not_theirs.status_code, not_theirs.json()["detail"]) == (
        400,
        "Кампания не привязана к этому партнёру",
    )
    gone = await admin.post(f"{ADMIN}/{member_user.id}/campaigns/999/unassign")
    assert (gone.status_code, gone.json()["detail"]) == (404, "Кампания не найдена")
    freed = await admin.post(f"{ADMIN}/{member_user.id}/campaigns/{cid}/unassign")
    assert (freed.status_code, freed.json()) == (200, {"success": True})
    assert (await admin.get(f"{ADMIN}/{member_user.id}")).json()["campaigns"] == []
    assert (await member.get(f"{PARTNER}/campaigns/{cid}/stats")).status_code == 404


async def test_taken_campaign_and_revocation(client, admin, member, admin_user, member_user):
    cid = (await client.post("/campaigns", json=CAMPAIGN)).json()["id"]
    await approve(admin, member)
    assert (await admin.post(f"{ADMIN}/{member_user.id}/campaigns/{cid}/assign")).status_code == 200
    assert (await admin.post(f"{PARTNER}/apply", json={})).status_code == 200  # a second partner
    assert (
        await admin.post(f"{ADMIN}/applications/2/approve", json={"commission_percent": 10})
    ).status_code == 200
    taken = await admin.post(f"{ADMIN}/{admin_user.id}/campaigns/{cid}/assign")
    assert (taken.status_code, taken.json()["detail"]) == (400, "Кампания уже привязана к другому партнёру")

    assert (await admin.post(f"{ADMIN}/{member_user.id}/revoke")).json() == {"success": True}
    assert (await member.get(f"{PARTNER}/status")).json()["campaigns"] == []
    assert (await admin.post(f"{ADMIN}/{member_user.id}/campaigns/{cid}/unassign")).status_code == 400
    mine = await admin.post(f"{ADMIN}/{admin_user.id}/campaigns/{cid}/assign")
    assert (mine.status_code, mine.json()) == (200, {"success": True})


async def test_campaign_referee_top_up_shows_in_partner_campaign_stats(
    app, db, client, admin, member, member_user, make_user, new_payment, credit, rows, wait_for
):
    """A campaign registers a user, its partner becomes the referrer; the user's provider
    top-up pays the partner an earning that records the campaign: the partner's campaign
    statistics, status and the administrator's partner detail show the referral and the earning."""
    cid = (await client.post("/campaigns", json=CAMPAIGN)).json()["id"]
    await approve(admin, member)  # 20 %
    assert (await admin.post(f"{ADMIN}/{member_user.id}/campaigns/{cid}/assign")).status_code == 200
    newcomer, outsider = await make_user(), await make_user(referred_by_id=member_user.id)
    async with db.session() as session:
        assert await attribute(app, session, newcomer.id, "spring")
        await session.commit()

    for user_id, reference in ((newcomer.id, "camp-1"), (outsider.id, "camp-2")):
        await new_payment(user_id, 5_000, provider_payment_id=reference)  # below the bonus minimum
        await credit(reference, 5_000)
    await wait_for(lambda: _two_earnings(rows))
    by_referee = {e.referral_id: e.campaign_id for e in await rows(ReferralEarning)}
    assert by_referee == {newcomer.id: cid, outsider.id: None}

    stats = await member.get(f"{PARTNER}/campaigns/{cid}/stats")
    assert stats.status_code == 200, stats.text
    body = stats.json()
    figures = ("registrations_count", "referrals_count", "earnings_kopeks", "conversion_rate")
    assert tuple(body[k] for k in figures) == (1, 1, 1_000, 100.0)
    assert (body["earnings_today"], body["earnings_week"], body["earnings_month"]) == (1_000,) * 3
    assert body["period_comparison"]["current"] == {"days": 7, "referrals_count": 1, "earnings_kopeks": 1_000}
    assert sum(d["earnings_kopeks"] for d in body["daily_stats"]) == 1_000 and len(body["daily_stats"]) == 30
    assert [(t["id"], t["total_earnings_kopeks"]) for t in body["top_referrals"]] == [(newcomer.id, 1_000)]
    status = (await member.get(f"{PARTNER}/status")).json()
    assert [(c["referrals_count"], c["earnings_kopeks"]) for c in status["campaigns"]] == [(1, 1_000)]
    detail = (await admin.get(f"{ADMIN}/{member_user.id}")).json()
    assert [(c["referrals_count"], c["earnings_kopeks"]) for c in detail["campaigns"]] == [(1, 1_000)]
    assert detail["earnings_all_time"] == 2_000  # the outsider's commission counts, not in the campaign


async def _two_earnings(rows: Any) -> bool:
    return len(await rows(ReferralEarning)) == 2


async def test_available_partners_are_the_approved_ones(admin, member, member_user, admin_user, make_user):
    """The campaign editor offers approved partners, not every referrer, nor an applicant."""
    await make_user(referred_by_id=admin_user.id)  # a referrer, not a partner
    available = "/cabinet/admin/campaigns/available-partners"
    assert (await member.post(f"{PARTNER}/apply", json={})).status_code == 200
    assert (await admin.get(available)).json() == []  # pending is not approved
    await admin.post(f"{ADMIN}/applications/1/approve", json={"commission_percent": 20})
    listed = await admin.get(available)
    assert listed.status_code == 200, listed.text
    assert [p["user_id"] for p in listed.json()] == [member_user.id]
    assert (await admin.post(f"{ADMIN}/{member_user.id}/revoke")).status_code == 200
    assert (await admin.get(available)).json() == []


async def test_only_an_approved_partner_is_a_campaigns_partner_and_becomes_the_referrer(
    admin, member, member_user, client, make_user, reload, wait_for
):
    """The campaign editor refuses a user who is not an approved partner; a campaign of an
    approved one makes the partner the referrer of the users it registers (a bot registration
    with the start parameter), a ``none`` bonus only tracks."""
    campaigns = "/cabinet/admin/campaigns"
    body = {**CAMPAIGN, "name": "Track", "start_parameter": "track", "partner_user_id": member_user.id}
    refused = await admin.post(campaigns, json=body)
    assert (refused.status_code, refused.json()["detail"]) == (400, "Partner not found or not approved")
    await approve(admin, member)
    made = await admin.post(campaigns, json=body)
    assert made.status_code == 200, made.text
    assert made.json()["partner_user_id"] == member_user.id
    plain = await make_user()
    moved = await admin.put(f"{campaigns}/{made.json()['id']}", json={"partner_user_id": plain.id})
    assert (moved.status_code, moved.json()["detail"]) == (400, "Partner not found or not approved")

    joined = await client.post("/users", json={"messenger_id": 9201, "start_parameter": "track"})
    assert joined.status_code == 201, joined.text
    registrations = f"{campaigns}/{made.json()['id']}/registrations"
    listed = await wait_for(lambda: _registered(admin, registrations))
    (item,) = listed["registrations"]
    assert (item["user_id"], item["bonus_type"], item["has_paid"]) == (joined.json()["id"], "none", False)
    user = (await client.get(f"/users/{joined.json()['id']}")).json()
    assert (user["referred_by_id"], user["balance_kopeks"]) == (member_user.id, 0)


async def _registered(admin: Any, path: str) -> dict[str, Any] | None:
    answer = (await admin.get(path)).json()  # its page and its total are two reads: wait for both
    return answer if answer["total"] and answer["registrations"] else None
