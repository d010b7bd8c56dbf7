"""In-app notifications: written with the ticket change, read and marked through the ten
operations; administrators' read state is their own."""

from __future__ import annotations

import pytest
from subsvc_ticket_notifications.models import TicketNotification
from subsvc_users.api import delete_user, get_user

from subsvc.testing import created

from .conftest import ADMIN_NOTIFICATIONS, USER_NOTIFICATIONS, admin_reply, listed, user_message


@pytest.fixture(autouse=True)
def _users(admin_user, member_user):
    """Users 1 (administrator) and 2 (the tickets' owner)."""


async def test_new_ticket_and_user_message_notify_administrators(admin, member, open_ticket, rows):
    ticket = await open_ticket(title="VPN does not connect")
    await admin_reply(admin, ticket["id"], "Try again")
    from_user = "still " * 30
    await user_message(member, ticket["id"], from_user)
    answer = await listed(admin, ADMIN_NOTIFICATIONS)
    assert [item["notification_type"] for item in answer["items"]] == ["user_reply", "new_ticket"]
    assert answer["items"][1]["message"] == f"New ticket #{ticket['id']}: VPN does not connect"
    assert answer["items"][0]["message"] == f"Reply in ticket #{ticket['id']}: {from_user[:100]}..."
    assert answer["unread_count"] == 2
    assert all(item["ticket_id"] == ticket["id"] and not item["is_read"] for item in answer["items"])
    stored = await rows(TicketNotification)
    assert {row.user_id for row in stored} == {2}  # admin rows name the ticket's owner too


async def test_admin_reply_notifies_the_owner_only(admin, member, open_ticket):
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Fixed <b>now</b>")
    answer = await listed(member, USER_NOTIFICATIONS)
    assert answer["unread_count"] == 1
    (item,) = answer["items"]
    assert item["notification_type"] == "admin_reply"
    assert item["message"] == f"Reply to ticket #{ticket['id']}: Fixed <b>now</b>"
    assert item["is_read"] is False and item["read_at"] is None
    assert set(item) == {
        "id",
        "ticket_id",
        "notification_type",
        "message",
        "is_read",
        "created_at",
        "read_at",
    }
    # the administrators' list holds only the new ticket
    assert [i["notification_type"] for i in (await listed(admin, ADMIN_NOTIFICATIONS))["items"]] == [
        "new_ticket"
    ]


async def test_switched_off_notifications_write_no_rows(admin, member, open_ticket, configure, rows):
    await configure(cabinet_admin_notifications_enabled=False, cabinet_user_notifications_enabled=False)
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Hello")
    await user_message(member, ticket["id"], "Thanks")
    assert await rows(TicketNotification) == []
    await configure(cabinet_user_notifications_enabled=True)
    await admin_reply(admin, ticket["id"], "Again")
    assert [row.notification_type for row in await rows(TicketNotification)] == ["admin_reply"]


async def test_user_marks_one_all_and_per_ticket(admin, member, open_ticket, utc_time):
    ticket = await open_ticket()
    for text in ("one", "two", "three"):
        await admin_reply(admin, ticket["id"], text)
    items = (await listed(member, USER_NOTIFICATIONS))["items"]
    first = items[-1]["id"]
    marked = await member.post(f"{USER_NOTIFICATIONS}/{first}/read")
    assert marked.status_code == 200 and marked.json() == {"success": True}
    assert (await listed(member, f"{USER_NOTIFICATIONS}/unread-count")) == {"unread_count": 2}
    read = next(i for i in (await listed(member, USER_NOTIFICATIONS))["items"] if i["id"] == first)
    assert read["is_read"] is True
    read_at = utc_time(read["read_at"])
    again = await member.post(f"{USER_NOTIFICATIONS}/{first}/read")  # keeps the first read_at
    assert again.status_code == 200
    unread = await listed(member, USER_NOTIFICATIONS, unread_only="true")
    assert len(unread["items"]) == 2 and unread["unread_count"] == 2
    assert all(
        utc_time(i["read_at"]) == read_at
        for i in (await listed(member, USER_NOTIFICATIONS))["items"]
        if i["id"] == first
    )
    other = await member.post(f"{USER_NOTIFICATIONS}/ticket/{ticket['id'] + 1000}/read")
    assert other.json() == {"success": True, "marked_count": 0}
    per_ticket = await member.post(f"{USER_NOTIFICATIONS}/ticket/{ticket['id']}/read")
    assert per_ticket.json() == {"success": True, "marked_count": 2}
    assert (await member.post(f"{USER_NOTIFICATIONS}/read-all")).json() == {
        "success": True,
        "marked_count": 0,
    }


async def test_user_list_pages_newest_first(admin, member, open_ticket):
    ticket = await open_ticket()
    for text in ("a", "b", "c"):
        await admin_reply(admin, ticket["id"], text)
    page = await listed(member, USER_NOTIFICATIONS, limit=2, offset=1)
    assert [i["message"][-1] for i in page["items"]] == ["b", "a"]
    assert page["unread_count"] == 3
    assert (await member.post(f"{USER_NOTIFICATIONS}/read-all")).json() == {
        "success": True,
        "marked_count": 3,
    }
    assert (await listed(member, USER_NOTIFICATIONS, unread_only="true"))["items"] == []
    bad = await member.get(USER_NOTIFICATIONS, params={"limit": 101})
    assert bad.status_code == 422


async def test_user_cannot_mark_an_admin_row_or_anothers(admin, member, open_ticket, cabinet, make_user):
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Hi")
    admin_row = (await listed(admin, ADMIN_NOTIFICATIONS))["items"][0]["id"]
    users_row = (await listed(member, USER_NOTIFICATIONS))["items"][0]["id"]
    refused = await member.post(f"{USER_NOTIFICATIONS}/{admin_row}/read")
    assert refused.status_code == 403
    assert refused.json() == {"detail": "You don't have permission to mark this notification as read"}
    stranger = await make_user(first_name="Eve")
    async with cabinet(stranger.id) as eve:
        assert (await eve.post(f"{USER_NOTIFICATIONS}/{users_row}/read")).status_code == 403
    missing = await member.post(f"{USER_NOTIFICATIONS}/999999/read")
    assert missing.status_code == 404 and missing.json() == {"detail": "Notification not found"}


async def test_each_administrator_reads_for_themselves(
    admin, open_ticket, permission_holder, cabinet, make_user
):
    first = await open_ticket(title="First ticket")
    async with await permission_holder(["tickets:read"]) as agent:
        one = (await listed(agent, ADMIN_NOTIFICATIONS))["items"][0]["id"]
        assert (await agent.post(f"{ADMIN_NOTIFICATIONS}/{one}/read")).json() == {"success": True}
        assert (await listed(agent, f"{ADMIN_NOTIFICATIONS}/unread-count")) == {"unread_count": 0}
        assert (await listed(admin, f"{ADMIN_NOTIFICATIONS}/unread-count")) == {"unread_count": 1}
        await admin_reply(admin, first["id"], "Done")
        other = await make_user(first_name="Bob")
        async with cabinet(other.id) as bob:
            second = await created(
                bob, "/cabinet/tickets", {"title": "Second ticket", "message": "Help"}, 200
            )
            await user_message(bob, second["id"], "More")
        assert (await listed(agent, ADMIN_NOTIFICATIONS))["unread_count"] == 2
        per_ticket = await agent.post(f"{ADMIN_NOTIFICATIONS}/ticket/{second['id']}/read")
        assert per_ticket.json() == {"success": True, "marked_count": 2}
        assert (await listed(agent, ADMIN_NOTIFICATIONS, unread_only="true"))["items"] == []
        assert (await listed(admin, ADMIN_NOTIFICATIONS))["unread_count"] == 3
        everything = await admin.post(f"{ADMIN_NOTIFICATIONS}/read-all")
        assert everything.json() == {"success": True, "marked_count": 3}
        listing = await listed(admin, ADMIN_NOTIFICATIONS)
        assert listing["unread_count"] == 0 and all(i["is_read"] and i["read_at"] for i in listing["items"])
        # a new row after the mark is unread for both
        async with cabinet(other.id) as bob:
            await user_message(bob, second["id"], "Hello?")
        assert (await listed(admin, ADMIN_NOTIFICATIONS, unread_only="true"))["unread_count"] == 1
        assert (await listed(agent, ADMIN_NOTIFICATIONS, unread_only="true"))["unread_count"] == 1
        assert (await agent.post(f"{ADMIN_NOTIFICATIONS}/read-all")).json()["marked_count"] == 1


async def test_admin_marking_a_users_row_is_refused(admin, member, open_ticket):
    ticket = await open_ticket()
    await admin_reply(admin, ticket["id"], "Hi")
    users_row = (await listed(member, USER_NOTIFICATIONS))["items"][0]["id"]
    refused = await admin.post(f"{ADMIN_NOTIFICATIONS}/{users_row}/read")
    assert refused.status_code == 403 and refused.json() == {"detail": "This is not an admin notification"}
    assert (await admin.post(f"{ADMIN_NOTIFICATIONS}/424242/read")).status_code == 404


async def test_admin_operations_need_tickets_read(member, permission_holder):
    for method, path in (
        ("GET", ADMIN_NOTIFICATIONS),
        ("GET", f"{ADMIN_NOTIFICATIONS}/unread-count"),
        ("POST", f"{ADMIN_NOTIFICATIONS}/1/read"),
        ("POST", f"{ADMIN_NOTIFICATIONS}/read-all"),
        ("POST", f"{ADMIN_NOTIFICATIONS}/ticket/1/read"),
    ):
        assert (await member.request(method, path)).status_code == 403
    async with await permission_holder(["tickets:reply"]) as replier:
        assert (await replier.get(ADMIN_NOTIFICATIONS)).status_code == 403


async def test_paths_are_not_taken_for_ticket_ids(member, admin):
    """``/cabinet/tickets/notifications`` is ours, not a ticket ``notifications``."""
    assert (await member.get(USER_NOTIFICATIONS)).json() == {"items": [], "unread_count": 0}
    assert (await admin.get(ADMIN_NOTIFICATIONS)).json() == {"items": [], "unread_count": 0}
    assert (await admin.get(f"{ADMIN_NOTIFICATIONS}/unread-count")).json() == {"unread_count": 0}


async def test_rows_go_with_their_ticket(app, db, admin, open_ticket, rows):
    ticket = await open_ticket()
    await admin.post(f"{ADMIN_NOTIFICATIONS}/ticket/{ticket['id']}/read")
    assert len(await rows(TicketNotification)) == 1
    async with db.session() as session:  # the owner goes: the tickets and rows with them
        await delete_user(app, session, await get_user(session, 2))
        await session.commit()
    assert await rows(TicketNotification) == []
    assert (await listed(admin, ADMIN_NOTIFICATIONS))["unread_count"] == 0


async def test_a_web_api_reply_notifies_the_owner_too(client, member, open_ticket):
    """Every area's reply counts (the reference only wrote rows for the cabinet's)."""
    ticket = await open_ticket()
    replied = await client.post(f"/tickets/{ticket['id']}/reply", json={"message_text": "From the API"})
    assert replied.status_code == 201, replied.text
    (item,) = (await listed(member, USER_NOTIFICATIONS))["items"]
    assert item["message"] == f"Reply to ticket #{ticket['id']}: From the API"


async def test_a_refused_change_leaves_no_notification(admin, member, open_ticket, rows):
    """The rows are written in the change's transaction: a change rolled back writes none."""
    ticket = await open_ticket()
    second = await member.post("/cabinet/tickets", json={"title": "Another one", "message": "Hi"})
    assert second.status_code == 409
    await admin.post(f"/cabinet/admin/tickets/{ticket['id']}/status", json={"status": "closed"})
    closed = await member.post(f"/cabinet/tickets/{ticket['id']}/messages", json={"message": "Hello?"})
    assert closed.status_code == 400
    assert [row.notification_type for row in await rows(TicketNotification)] == ["new_ticket"]
