"""The referrals plugin's network sees the campaigns and the users they registered (through
the ``referral_network_campaigns`` hook this plugin answers when referrals runs)."""

from __future__ import annotations

import pytest
from subsvc_campaigns.api import attribute

NETWORK = "/cabinet/admin/referral-network"


@pytest.fixture
def subsvc_plugins() -> list[str]:
    return ["campaigns", "referrals", "cabinet_auth", "billing", "tariffs", "servers", "subscriptions"]


async def test_the_network_lists_a_campaign_and_its_users(app, db, client, admin, admin_user, make_user):
    made = await client.post(
        "/campaigns", json={"name": "Spring", "start_parameter": "spring", "bonus_type": "none"}
    )
    assert made.status_code == 201, made.text
    cid = made.json()["id"]
    newcomer, friend = await make_user(username="newcomer"), None
    async with db.session() as session:
        assert await attribute(app, session, newcomer.id, "spring")
        await session.commit()
    friend = await make_user(username="friend", referred_by_id=newcomer.id)

    graph = (await admin.get(f"{NETWORK}/")).json()
    assert [(c["id"], c["start_parameter"], c["direct_users"]) for c in graph["campaigns"]] == [
        (cid, "spring", 1)
    ]
    assert {node["id"] for node in graph["users"]} == {newcomer.id, friend.id}
    assert {"source": f"campaign_{cid}", "target": f"user_{newcomer.id}", "type": "campaign"} in graph[
        "edges"
    ]
    scoped = (await admin.get(f"{NETWORK}/scoped", params={"campaign_ids": [cid]})).json()
    assert [c["id"] for c in scoped["campaigns"]] == [cid]
    assert newcomer.id in {node["id"] for node in scoped["users"]}
