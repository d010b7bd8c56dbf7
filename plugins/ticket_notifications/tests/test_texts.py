"""The pure parts: what the texts say, and which rows an event calls for."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from subsvc_support.api import SupportConfig
from subsvc_ticket_notifications import texts
from subsvc_ticket_notifications.recording import plan

from subsvc.events import Event

NOW = datetime(2026, 1, 1, tzinfo=UTC)
ON = SupportConfig(
    system_mode="both",
    menu_enabled=True,
    info_texts={},
    moderators=(),
    admin_ticket_notifications_enabled=True,
    user_ticket_notifications_enabled=True,
    cabinet_user_notifications_enabled=True,
    cabinet_admin_notifications_enabled=True,
    sla_enabled=True,
    sla_minutes=5,
    sla_check_interval_seconds=60,
    sla_reminder_cooldown_minutes=30,
)


def message(is_from_admin: bool, text: str = "Hi", event_id: int = 1) -> Event:
    payload = {
        "ticket_id": 9,
        "user_id": 2,
        "title": "T",
        "message_id": 3,
        "is_from_admin": is_from_admin,
        "author_user_id": 1,
        "author_name": None,
        "message_text": text,
        "media_type": None,
        "media_file_id": None,
        "media_caption": None,
    }
    return Event(event_id, "ticket.message_added", payload, NOW)


def test_texts_cut_and_escape():
    assert texts.cut("abc", 3) == "abc" and texts.cut("abcd", 3) == "abc..."
    assert texts.message_text({"message_text": " ", "media_caption": "cap"}) == "cap"
    assert texts.message_text({"message_text": ""}) == "[media]"
    assert texts.new_ticket({"ticket_id": 1, "title": "x" * 80}) == "New ticket #1: " + "x" * 50
    person = texts.Person(5, "<Ann>", "ann_b", None, "a@b.c")
    assert person.html() == "&lt;Ann&gt; (@ann_b), a@b.c"
    assert texts.Person(5).html() == "User #5, #5"
    alert = texts.sla_alert(4, "<t>", "open", 12)
    assert "Ticket #4: &lt;t&gt;" in alert and "Waiting for 12 min" in alert


def test_plan_follows_the_author_and_the_switches():
    events = [
        message(True, event_id=1),
        message(False, event_id=2),
        Event(3, "ticket.status_changed", {}, NOW),
    ]
    found = plan(ON, events, NOW)
    assert [(row["notification_type"], row["is_for_admin"]) for row in found.notifications] == [
        ("admin_reply", False),
        ("user_reply", True),
    ]
    assert [(row["kind"], row["event_id"]) for row in found.deliveries] == [
        ("user_notice", 1),
        ("admin_user_reply", 2),
    ]
    assert found.sla_over == [9]
    quiet = replace(ON, cabinet_user_notifications_enabled=False, admin_ticket_notifications_enabled=False)
    found = plan(quiet, events, NOW)
    assert [row["notification_type"] for row in found.notifications] == ["user_reply"]
    assert [row["kind"] for row in found.deliveries] == ["user_notice"]
