"""Members of promo groups (counted through the users plugin), deleting groups, and the
default group service."""

from __future__ import annotations

from subsvc_promo_groups import service
from subsvc_promo_groups.models import PromoGroup
from subsvc_users.models import User

from subsvc.testing import recorded_statements


async def test_members_count_in_list_get_and_patch(client, make_group, make_user):
    base = await make_group(name="base")
    vip = await make_group(name="vip")
    empty = await make_group(name="empty")
    for _ in range(3):
        await make_user(promo_group_id=vip["id"])
    await make_user()  # the default group: base
    r = await client.get("/promo-groups")
    counts = {g["name"]: g["members_count"] for g in r.json()["items"]}
    assert counts == {"base": 1, "vip": 3, "empty": 0}
    assert (await client.get(f"/promo-groups/{vip['id']}")).json()["members_count"] == 3
    r = await client.patch(f"/promo-groups/{base['id']}", json={"priority": 1})
    assert r.json()["members_count"] == 1
    assert (await client.get(f"/promo-groups/{empty['id']}")).json()["members_count"] == 0


async def test_members_follow_user_changes_at_once(client, make_group, make_user):
    await make_group(name="base")
    vip = await make_group(name="vip")
    user = await make_user()
    assert (await client.get(f"/promo-groups/{vip['id']}")).json()["members_count"] == 0
    r = await client.patch(f"/users/{user['id']}", json={"promo_group_id": vip["id"]})
    assert r.status_code == 200
    assert (await client.get(f"/promo-groups/{vip['id']}")).json()["members_count"] == 1


async def test_members_are_counted_in_one_query_per_page(client, app, make_group, make_user):
    groups = [await make_group(name=f"g{i}") for i in range(5)]
    for group in groups:
        await make_user(promo_group_id=group["id"])
    with recorded_statements(app.state.db) as ours:
        r = await client.get("/promo-groups", params={"limit": 5})
    assert [g["members_count"] for g in r.json()["items"]] == [1] * 5
    on_users = [s for s in ours if "FROM users" in s]
    assert len(on_users) == 1 and "GROUP BY" in on_users[0]
    assert len(ours) == 3  # total, page, members


async def test_delete_moves_members_to_the_default_group(client, make_group, make_user, rows):
    base = await make_group(name="base")
    vip = await make_group(name="vip")
    members = [await make_user(promo_group_id=vip["id"]) for _ in range(2)]
    r = await client.delete(f"/promo-groups/{vip['id']}")
    assert r.status_code == 204
    assert r.content == b""
    assert [g.id for g in await rows(PromoGroup)] == [base["id"]]
    moved = await rows(User)
    assert {u.id for u in moved} == {m["id"] for m in members}
    assert {u.promo_group_id for u in moved} == {base["id"]}
    assert all(u.updated_at.isoformat() > m["updated_at"][:-1] for u, m in zip(moved, members, strict=True))
    assert (await client.get(f"/promo-groups/{vip['id']}")).json() == {"detail": "Promo group not found"}
    assert (await client.get(f"/promo-groups/{base['id']}")).json()["members_count"] == 2


async def test_default_group_cannot_be_deleted(client, make_group, rows):
    base = await make_group(name="base")
    r = await client.delete(f"/promo-groups/{base['id']}")
    assert r.status_code == 400
    assert r.json() == {"detail": "Cannot delete default promo group"}
    assert len(await rows(PromoGroup)) == 1


async def test_delete_404_and_422_beyond_the_column(client):
    for missing in (1, 2**31 - 1):
        r = await client.delete(f"/promo-groups/{missing}")
        assert r.status_code == 404
        assert r.json() == {"detail": "Promo group not found"}
    beyond = await client.delete(f"/promo-groups/{10**12}")
    assert beyond.status_code == 422
    assert [(e["loc"], e["type"]) for e in beyond.json()["detail"]] == [
        (["path", "group_id"], "less_than_equal")
    ]


async def test_ensure_default_group_creates_it_once(db, rows):
    async with db.session() as session:
        created = await service.ensure_default_group(session)
        again = await service.ensure_default_group(session)
        await session.commit()
    assert created is again
    (row,) = await rows(PromoGroup)
    assert (row.name, row.is_default) == ("Базовый юзер", True)
    discounts = (row.server_discount_percent, row.traffic_discount_percent, row.device_discount_percent)
    assert discounts == (0, 0, 0)
    async with db.session() as session:
        assert (await service.ensure_default_group(session)).id == row.id
    assert len(await rows(PromoGroup)) == 1


async def test_ensure_default_group_returns_the_existing_default(db, make_group, rows):
    await make_group(name="other")
    vip = await make_group(name="vip", is_default=True)
    async with db.session() as session:
        assert (await service.ensure_default_group(session)).id == vip["id"]
    assert len(await rows(PromoGroup)) == 2


async def test_ensure_default_group_gives_the_flag_back_to_its_namesake(db, rows):
    async with db.session() as session:
        session.add(PromoGroup(name="Базовый юзер", is_default=False))
        await session.commit()
    async with db.session() as session:
        group = await service.ensure_default_group(session)
        await session.commit()
    (row,) = await rows(PromoGroup)
    assert (row.id, row.is_default) == (group.id, True)
