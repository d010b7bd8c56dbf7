"""A partner's campaigns over HTTP: assignment and unassignment with their refusals, the
partner's detail and status listing them with registrations, the partner's campaign stats,
revocation freeing them."""

from __future__ import annotations

from typing import Any

from subsvc_campaigns.api import attribute

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
