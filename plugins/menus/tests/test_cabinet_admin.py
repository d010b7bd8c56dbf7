"""`/cabinet/admin/button-styles` and `/cabinet/admin/menu-layout`: the cabinet's menu, its
checks, and the permission each operation needs."""

from __future__ import annotations

from typing import Any

import pytest
from subsvc_menus.models import MenuDocument

STYLES = "/cabinet/admin/button-styles"
LAYOUT = "/cabinet/admin/menu-layout"


async def stored(db: Any) -> list[MenuDocument]:
    """The menu documents in the database, by key."""
    from sqlmodel import select

    async with db.session() as session:
        return list((await session.exec(select(MenuDocument).order_by(MenuDocument.key))).all())


SECTIONS = ["home", "subscription", "balance", "referral", "support", "info", "admin"]


async def test_styles_start_from_the_defaults(admin):
    body = (await admin.get(STYLES)).json()
    assert list(body) == SECTIONS
    assert {s: body[s]["style"] for s in SECTIONS} == {
        "home": "primary",
        "subscription": "success",
        "balance": "primary",
        "referral": "success",
        "support": "primary",
        "info": "primary",
        "admin": "danger",
    }
    assert body["home"] == {"style": "primary", "icon_custom_emoji_id": "", "enabled": True, "labels": {}}


async def test_a_partial_update_changes_only_what_is_given(admin, db):
    response = await admin.patch(
        STYLES,
        json={
            "home": {
                "style": "danger",
                "labels": {"en": " Home ", "ru": ""},
                "icon_custom_emoji_id": " 5368 ",
            },
            "info": {"enabled": False},
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["home"] == {
        "style": "danger",
        "icon_custom_emoji_id": "5368",
        "enabled": True,
        "labels": {"en": "Home"},
    }
    assert body["info"]["enabled"] is False and body["info"]["style"] == "primary"
    assert body["admin"]["style"] == "danger"
    assert (await admin.get(STYLES)).json() == body
    (document,) = await stored(db)
    assert document.key == "button_styles" and document.data["home"]["style"] == "danger"


STYLE_REFUSALS = [
    (
        {"home": {"style": "pink"}},
        400,
        'Invalid style "pink" for section "home". Allowed: danger, default, primary, success.',
    ),
    (
        {"home": {"labels": {"de": "Heim"}}},
        400,
        'Invalid locale "de" for section "home". Allowed: ru, en, ua, zh, fa.',
    ),
    (
        {"home": {"labels": {"en": "x" * 101}}},
        400,
        'Label for locale "en" on section "home" exceeds 100 characters.',
    ),
    ({"language": {"style": "primary"}}, 422, None),
    ({"home": {"colour": "red"}}, 422, None),
]


async def test_style_refusals(admin):
    for body, status, detail in STYLE_REFUSALS:
        response = await admin.patch(STYLES, json=body)
        assert response.status_code == status
        if detail:
            assert response.json() == {"detail": detail}
    assert (await admin.get(STYLES)).json()["home"]["style"] == "primary"


async def test_reset_styles(admin):
    await admin.patch(STYLES, json={"admin": {"style": "default"}})
    response = await admin.post(f"{STYLES}/reset")
    assert response.status_code == 200 and response.json()["admin"]["style"] == "danger"
    assert (await admin.get(STYLES)).json()["admin"]["style"] == "danger"


async def test_the_default_cabinet_menu(admin):
    body = (await admin.get(LAYOUT)).json()
    assert [[b["id"] for b in row["buttons"]] for row in body["rows"]] == [
        ["home"],
        ["subscription", "balance"],
        ["referral", "support"],
        ["info", "language"],
        ["admin"],
    ]
    assert [row["id"] for row in body["rows"]] == ["row_1", "row_2", "row_3", "row_4", "row_5"]
    subscription = body["rows"][1]["buttons"][0]
    assert subscription == {
        "id": "subscription",
        "type": "builtin",
        "style": "success",
        "icon_custom_emoji_id": "",
        "enabled": True,
        "labels": {},
        "url": None,
        "open_in": "external",
    }


def _rows(*rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"rows": [{"id": f"r{n}", "max_per_row": 2, "buttons": buttons} for n, buttons in enumerate(rows)]}


async def test_saving_the_menu_splits_styles_from_the_layout(admin):
    custom = {
        "id": "custom_docs",
        "type": "custom",
        "url": "https://docs.example.com",
        "open_in": "webapp",
        "style": "success",
        "labels": {"en": "Docs"},
    }
    home = {"id": "home", "type": "builtin", "style": "danger", "labels": {"ru": "Дом"}}
    language = {"id": "language", "type": "builtin", "style": "default"}
    response = await admin.put(LAYOUT, json=_rows([home, custom], [language]))
    assert response.status_code == 200, response.text
    rows = response.json()["rows"]
    assert [[b["id"] for b in row["buttons"]] for row in rows] == [["home", "custom_docs"], ["language"]]
    assert (
        rows[0]["buttons"][1]["url"] == "https://docs.example.com"
        and rows[0]["buttons"][1]["open_in"] == "webapp"
    )
    assert rows[1]["buttons"][0]["style"] == "default"
    styles = (await admin.get(STYLES)).json()
    assert styles["home"]["style"] == "danger" and styles["home"]["labels"] == {"ru": "Дом"}
    assert styles["subscription"]["style"] == "success"  # not in the request: kept
    assert (await admin.get(LAYOUT)).json()["rows"] == rows
    await admin.patch(STYLES, json={"home": {"style": "primary"}})  # the styles feed the merged view
    assert (await admin.get(LAYOUT)).json()["rows"][0]["buttons"][0]["style"] == "primary"


MENU_REFUSALS = [
    (
        [[{"id": "home", "type": "builtin"}, {"id": "home", "type": "builtin"}]],
        'Duplicate button ID: "home". Each button can only appear once.',
    ),
    ([[{"id": "wallet", "type": "builtin"}]], 'Unknown built-in section: "wallet".'),
    (
        [[{"id": "docs", "type": "custom", "url": "https://x"}]],
        'Custom button id must start with "custom_": "docs".',
    ),
    (
        [[{"id": "custom_x", "type": "custom", "url": "ftp://x"}]],
        'Custom button "custom_x" must have a URL starting with http://, https://, or tg://.',
    ),
    (
        [[{"id": "custom_x", "type": "custom", "url": "http://x", "open_in": "webapp"}]],
        'Custom button "custom_x" with webapp mode requires an https:// URL.',
    ),
    (
        [[{"id": "home", "type": "builtin", "style": "neon"}]],
        'Invalid style "neon" for button "home". Allowed: danger, default, primary, success.',
    ),
    (
        [[{"id": "home", "type": "builtin", "labels": {"xx": "y"}}]],
        'Invalid locale "xx" for button "home". Allowed: ru, en, ua, zh, fa.',
    ),
    (
        [[{"id": f"custom_{n}", "type": "custom", "url": "https://x"} for n in range(9)]],
        'Row "r0" has 9 buttons. Maximum per row: 8.',
    ),
    ([[]] * 21, "Too many rows: 21. Maximum allowed: 20."),
]


async def test_menu_refusals_change_nothing(admin):
    for rows, detail in MENU_REFUSALS:
        response = await admin.put(LAYOUT, json=_rows(*rows))
        assert response.status_code == 400 and response.json() == {"detail": detail}
    assert len((await admin.get(LAYOUT)).json()["rows"]) == 5


async def test_a_malformed_menu_is_422(admin):
    response = await admin.put(
        LAYOUT, json={"rows": [{"id": "r", "max_per_row": 4, "buttons": [{"id": "home", "type": "x"}]}]}
    )
    assert response.status_code == 422
    assert {tuple(e["loc"]) for e in response.json()["detail"]} == {
        ("body", "rows", 0, "max_per_row"),
        ("body", "rows", 0, "buttons", 0, "type"),
    }


async def test_reset_restores_the_menu_and_the_styles(admin):
    await admin.put(LAYOUT, json=_rows([{"id": "home", "type": "builtin", "style": "danger"}]))
    response = await admin.post(f"{LAYOUT}/reset")
    assert response.status_code == 200 and len(response.json()["rows"]) == 5
    assert (await admin.get(STYLES)).json()["home"]["style"] == "primary"


OPERATIONS = [
    ("GET", STYLES, None, "settings:read"),
    ("PATCH", STYLES, {"home": {"style": "danger"}}, "settings:edit"),
    ("POST", f"{STYLES}/reset", None, "settings:edit"),
    ("GET", LAYOUT, None, "settings:read"),
    ("PUT", LAYOUT, {"rows": []}, "settings:edit"),
    ("POST", f"{LAYOUT}/reset", None, "settings:edit"),
]


def test_every_cabinet_operation_has_its_permission(app):
    """(401 and 403 at the gate: tests/test_plugin_permissions.py.)"""
    declared = {(e.method, e.path): e.permission for e in app.state.endpoints if e.area == "cabinet-admin"}
    assert declared == {(method, path): permission for method, path, _, permission in OPERATIONS}


class TestWithRbac:
    """With the rbac plugin, a role's settings permissions decide, and each call is audited."""

    @pytest.fixture
    def subsvc_plugins(self) -> list[Any]:
        return ["rbac", "menus"]

    async def test_a_reader_reads_but_does_not_change(self, app, db, admin):
        from subsvc_rbac.models import AuditLogEntry
        from subsvc_rbac.testing import role_holder
        from subsvc_users.schemas import UserCreateRequest
        from subsvc_users.service import create_user

        async with db.session() as session:
            user = await create_user(app, session, UserCreateRequest(messenger_id=700_123_456))
            await session.commit()
        reader = await role_holder(app, admin, user.id, ["settings:read"], messenger_id=user.messenger_id)
        async with reader:
            assert (await reader.get(STYLES)).status_code == 200
            assert (await reader.get(LAYOUT)).status_code == 200
            refused = await reader.patch(STYLES, json={"home": {"style": "danger"}})
            assert refused.status_code == 403
            assert refused.json() == {"detail": "Permission denied: Permission not granted by any role"}
        await app.state.rbac.audit.flush()
        async with db.session() as session:
            from sqlmodel import select

            entries = (
                await session.exec(select(AuditLogEntry).where(AuditLogEntry.user_id == user.id))
            ).all()
        assert {(e.request_method, e.request_path, e.status) for e in entries} >= {
            ("PATCH", STYLES, "denied"),
            ("GET", STYLES, "success"),
        }
