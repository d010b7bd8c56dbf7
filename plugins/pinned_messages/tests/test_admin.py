"""The cabinet admin's twin routes: the same operations, `broadcast` in the create body, the
administrator recorded as creator; the permission of each (`pinned_messages:*`; 401 and 403 at
the gate: tests/test_plugin_permissions.py)."""

from __future__ import annotations

import re
from typing import Any

ADMIN = "/cabinet/admin/pinned-messages"
WEB = "/pinned-messages"

# (method, path, body, permission); the reference's eleven operations and the two progress reads
OPERATIONS: list[tuple[str, str, Any, str]] = [
    ("GET", "", None, "pinned_messages:read"),
    ("POST", "", {"content": "x"}, "pinned_messages:create"),
    ("GET", "/active", None, "pinned_messages:read"),
    ("POST", "/active/deactivate", None, "pinned_messages:edit"),
    ("POST", "/active/unpin", None, "pinned_messages:edit"),
    ("GET", "/broadcasts", None, "pinned_messages:read"),
    ("GET", "/broadcasts/{id}", None, "pinned_messages:read"),
    ("GET", "/{id}", None, "pinned_messages:read"),
    ("PATCH", "/{id}", {}, "pinned_messages:edit"),
    ("DELETE", "/{id}", None, "pinned_messages:delete"),
    ("PATCH", "/{id}/settings", {}, "pinned_messages:edit"),
    ("POST", "/{id}/activate", None, "pinned_messages:edit"),
    ("POST", "/{id}/broadcast", None, "pinned_messages:edit"),
]


def _normalise(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_every_operation_declares_its_permission(app):
    for base, tag in ((ADMIN, "Cabinet Admin Pinned Messages"), (WEB, "pinned-messages")):
        ours = {(e.method, _normalise(e.path)): e.permission for e in app.state.endpoints if e.tag == tag}
        assert ours == {(method, _normalise(base + path)): perm for method, path, _, perm in OPERATIONS}
    assert app.state.permissions["pinned_messages"] == ["read", "create", "edit", "delete"]


async def test_create_with_broadcast_in_the_body_records_the_administrator(
    admin, admin_user, member_user, fake_bot_api, finished
):
    response = await admin.post(ADMIN, json={"content": "<u>Hi</u>", "broadcast": True})
    assert response.status_code == 201
    answer = response.json()
    assert (answer["message"]["created_by"], answer["message"]["is_active"], answer["total_count"]) == (
        admin_user.id,
        True,
        2,
    )
    progress = await finished(admin, answer["broadcast_id"], ADMIN)
    assert (progress["sent_count"], progress["created_by"]) == (2, admin_user.id)
    for chat in (admin_user.messenger_id, member_user.messenger_id):
        assert [m["text"] for m in fake_bot_api.sent_to(chat)] == ["<u>Hi</u>"]


async def test_the_admin_area_serves_the_same_messages(admin, client):
    created = (await client.post(WEB, json={"content": "from the web"})).json()["message"]
    assert created["created_by"] is None
    listed = (await admin.get(ADMIN)).json()
    assert [item["id"] for item in listed["items"]] == [created["id"]]
    assert (await admin.get(f"{ADMIN}/active")).json()["id"] == created["id"]
    changed = await admin.patch(f"{ADMIN}/{created['id']}/settings", json={"send_on_every_start": False})
    assert changed.json()["send_on_every_start"] is False
    bad = await admin.patch(f"{ADMIN}/{created['id']}", json={"content": '<a href="javascript:x">x</a>'})
    assert bad.status_code == 400 and "must start with http://" in bad.json()["detail"]
    assert (await admin.post(f"{ADMIN}/active/deactivate")).json()["is_active"] is False
    activated = await admin.post(f"{ADMIN}/{created['id']}/activate")
    assert (activated.status_code, activated.json()["message"]["is_active"]) == (200, True)
    deleted = await admin.delete(f"{ADMIN}/{created['id']}")
    assert (deleted.status_code, deleted.content) == (204, b"")
    missing = await admin.delete(f"{ADMIN}/{created['id']}")
    assert (missing.status_code, missing.json()) == (404, {"detail": "Pinned message not found"})
    assert (await admin.delete(f"{ADMIN}/abc")).status_code == 422


async def test_admin_unpin_and_broadcast(admin, admin_user, fake_bot_api, finished):
    created = (await admin.post(ADMIN, json={"content": "pin me"})).json()["message"]
    sent = (await admin.post(f"{ADMIN}/{created['id']}/broadcast")).json()
    await finished(admin, sent["broadcast_id"], ADMIN)
    assert fake_bot_api.pinned[admin_user.messenger_id]
    unpinned = (await admin.post(f"{ADMIN}/active/unpin")).json()
    assert unpinned["was_active"] is True
    progress = await finished(admin, unpinned["broadcast_id"], ADMIN)
    assert (progress["kind"], progress["sent_count"], progress["created_by"]) == ("unpin", 2, admin_user.id)
    assert not fake_bot_api.pinned.get(admin_user.messenger_id)
