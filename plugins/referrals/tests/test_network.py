"""The administrators' referral network over HTTP (tag Cabinet Admin Referral Network)."""

from __future__ import annotations

import pytest
from subsvc_referrals.hookspecs import NetworkCampaign
from subsvc_referrals.network_schemas import NetworkGraphResponse

from subsvc.hookspecs import hookimpl

BASE = "/cabinet/admin/referral-network"


class _Campaigns:
    """A plugin of the test answering the campaigns hook (the campaigns plugin does in production)."""

    def __init__(self, campaign: NetworkCampaign) -> None:
        self.campaign = campaign

    @hookimpl
    async def referral_network_campaigns(self, session, campaign_ids):
        if campaign_ids is None or self.campaign.id in campaign_ids:
            return [self.campaign]
        return []


@pytest.fixture
async def tree(admin_user, make_user):
    """root -> a -> (b, c); b -> d; and a user outside the network."""
    root = await make_user(username="root_user", email="root@example.com")
    a = await make_user(username="alpha", referred_by_id=root.id)
    b = await make_user(username="bravo", referred_by_id=a.id)
    c = await make_user(username="charlie", referred_by_id=a.id)
    d = await make_user(username="delta", referred_by_id=b.id)
    loner = await make_user(username="loner")
    return {"root": root, "a": a, "b": b, "c": c, "d": d, "loner": loner}


async def test_the_whole_network(admin, tree):
    graph = (await admin.get(f"{BASE}/")).json()
    NetworkGraphResponse.model_validate(graph, strict=False)  # the answer is written straight to JSON
    ids = {node["id"]: node for node in graph["users"]}
    assert set(ids) == {tree[k].id for k in ["root", "a", "b", "c", "d"]}
    assert ids[tree["root"].id]["total_branch_users"] == 4
    assert ids[tree["a"].id]["direct_referrals"] == 2
    assert ids[tree["a"].id]["total_branch_users"] == 3
    assert ids[tree["d"].id]["referrer_id"] == tree["b"].id
    assert graph["total_users"] == 5 and graph["total_referrers"] == 3
    assert {"source": f"user_{tree['a'].id}", "target": f"user_{tree['b'].id}", "type": "referral"} in graph[
        "edges"
    ]
    assert len(graph["edges"]) == 4


async def test_user_detail_counts_the_whole_branch(admin, tree):
    detail = (await admin.get(f"{BASE}/user/{tree['a'].id}")).json()
    assert detail["total_branch_users"] == 3
    assert detail["referrer_display_name"] == "root_user"
    assert detail["direct_referrals"] == 2
    assert (await admin.get(f"{BASE}/user/999999")).status_code == 404


async def test_scoped_to_a_user_holds_its_branch_and_referrers(admin, tree):
    graph = (await admin.get(f"{BASE}/scoped", params={"user_ids": [tree["b"].id]})).json()
    assert {node["id"] for node in graph["users"]} == {tree[k].id for k in ["root", "a", "b", "d"]}


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({}, "At least one campaign, partner, or user must be selected"),
        (
            {"user_ids": list(range(1, 31)), "partner_ids": list(range(1, 22))},
            "Too many items selected (max 50)",
        ),
        ({"user_ids": [999999]}, "No valid items found for the provided IDs"),
    ],
)
async def test_scoped_refusals(admin, tree, params, detail):
    response = await admin.get(f"{BASE}/scoped", params=params)
    assert (response.status_code, response.json()["detail"]) == (400, detail)


async def test_more_than_50_of_one_kind_is_422(admin, tree):
    assert (await admin.get(f"{BASE}/scoped", params={"user_ids": list(range(1, 52))})).status_code == 422


async def test_search(admin, tree):
    found = (await admin.get(f"{BASE}/search", params={"q": "ALPH"})).json()
    assert [node["id"] for node in found["users"]] == [tree["a"].id]
    found = (await admin.get(f"{BASE}/search", params={"q": "%"})).json()
    assert found["users"] == []
    found = (await admin.get(f"{BASE}/search", params={"q": str(tree["loner"].messenger_id)})).json()
    assert [node["id"] for node in found["users"]] == [tree["loner"].id]
    assert (await admin.get(f"{BASE}/search", params={"q": ""})).status_code == 422


async def test_campaigns_from_the_hook(app, admin, tree):
    campaign = NetworkCampaign(7, "Spring", "spring", True, (tree["a"].id,), partner_user_id=tree["root"].id)
    app.state.plugins.register(_Campaigns(campaign), name="test-campaigns")
    graph = (await admin.get(f"{BASE}/")).json()
    (node,) = graph["campaigns"]
    assert (node["id"], node["direct_users"], node["total_network_users"]) == (7, 1, 4)
    assert node["top_referrers"] == [{"user_id": tree["a"].id, "username": "alpha", "referral_count": 2}]
    assert {"source": "campaign_7", "target": f"user_{tree['a'].id}", "type": "campaign"} in graph["edges"]
    assert next(u for u in graph["users"] if u["id"] == tree["a"].id)["campaign_id"] == 7
    detail = (await admin.get(f"{BASE}/campaign/7")).json()
    assert detail["name"] == "Spring"
    assert (await admin.get(f"{BASE}/campaign/8")).status_code == 404
    scoped = (await admin.get(f"{BASE}/scoped", params={"campaign_ids": [7]})).json()
    NetworkGraphResponse.model_validate(scoped)
    assert {node["id"] for node in scoped["users"]} == {tree[k].id for k in ["root", "a", "b", "c", "d"]}
    options = (await admin.get(f"{BASE}/scope-options")).json()
    assert options["campaigns"][0]["direct_users"] == 1
    assert (await admin.get(f"{BASE}/search", params={"q": "spr"})).json()["campaigns"][0]["id"] == 7


async def test_members_are_refused(member, member_user):
    assert (await member.get(f"{BASE}/")).status_code == 403
