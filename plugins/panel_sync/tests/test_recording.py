"""Recording pushes never loses good outcomes for a bad one (issue 16): the outcomes of a
drain are written together; when the database refuses one (here a panel id longer than the
column holds, which PostgreSQL refuses), the others are recorded alone and the one at fault
is recorded without what could not be stored."""

from __future__ import annotations

from subsvc_subscriptions.models import Subscription


async def _synced(client, subscription_id):
    found = (await client.get(f"/panel/sync/subscriptions/{subscription_id}")).json()
    return found if found["panel_sync_status"] == "synced" else None


async def test_a_push_the_database_cannot_record_costs_no_other(
    client, panel, make_subscription, wait_for, rows
):
    await panel.down()
    subs = [await make_subscription() for _ in range(4)]
    (odd_row,) = await rows(Subscription, id=subs[1]["id"])
    # made in the panel earlier (an attempt whose answer was lost), with an id longer than ours
    odd = panel.add_user(
        f"user_{subs[1]['messenger_id']}_{odd_row.short_id}",
        uuid="u" * 100,
        telegramId=subs[1]["messenger_id"],
    )
    await panel.up()
    for sub in subs:
        await wait_for(lambda sub=sub: _synced(client, sub["id"]))
    for sub in subs:
        (user,) = panel.users_of_messenger_id(sub["messenger_id"])  # one each: none made twice
        found = await _synced(client, sub["id"])
        if sub is subs[1]:
            assert user["uuid"] == odd["uuid"]
            assert found["panel_uuid"] in (None, odd["uuid"])  # PostgreSQL: not storable, left out
        else:
            assert found["panel_uuid"] == user["uuid"]
