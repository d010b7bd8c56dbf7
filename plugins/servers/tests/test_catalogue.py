"""``service.available_for``: the servers a promo group's member may buy (for purchase flows)."""

from __future__ import annotations

from subsvc_servers import service
from subsvc_servers.models import Server


async def test_available_for_keeps_available_open_and_allowed_servers(db, make_server, make_group):
    vip, gold = await make_group("VIP"), await make_group("Gold")
    await make_server("open", sortOrder=1, isTrialEligible=True)
    await make_server("vip-only", sortOrder=2, promoGroupIds=[vip["id"]])
    await make_server("off", sortOrder=3, isAvailable=False)
    full = await make_server("full", sortOrder=4, maxUsers=1)
    await make_server("roomy", sortOrder=5, maxUsers=5, isTrialEligible=True)
    async with db.session() as session:
        row = await session.get(Server, full["id"])
        row.current_users = 1
        await session.commit()

    async with db.session() as session:
        as_vip = [s.squad_uuid for s in await service.available_for(session, vip["id"])]
        as_gold = [s.squad_uuid for s in await service.available_for(session, gold["id"])]
        as_nobody = [s.squad_uuid for s in await service.available_for(session, None)]
        trials = [s.squad_uuid for s in await service.available_for(session, vip["id"], trial=True)]
    assert as_vip == ["open", "vip-only", "roomy"]
    assert as_gold == as_nobody == ["open", "roomy"]
    assert trials == ["open", "roomy"]
