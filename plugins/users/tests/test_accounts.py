"""The cabinet identity rules (``subsvc_users.accounts``): what each one writes, and only that."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from subsvc_users.api import (
    User,
    UserCreateRequest,
    UserRuleError,
    create_cabinet_user,
    link_messenger_id,
    record_cabinet_login,
    set_password_hash,
    touch,
    verify_email,
)

from subsvc.db import Database


async def _one(rows, user_id: int) -> User:
    (row,) = await rows(User, id=user_id)
    return row


async def test_create_cabinet_user_follows_create_users_rules(app, db: Database, client, rows, outbox):
    data = UserCreateRequest(first_name="Ann", language="en")
    async with db.session() as session:
        user = await create_cabinet_user(
            app,
            session,
            data,
            auth_type="email",
            password_hash="hash1",
            email="ann@example.com",
            email_verified_by="cabinet",
        )
        await session.commit()
        user_id = user.id
    assert user_id is not None
    row = await _one(rows, user_id)
    assert (row.auth_type, row.password_hash, row.email) == ("email", "hash1", "ann@example.com")
    assert (row.email_verified, row.email_verification_source) == (True, "cabinet")
    assert row.email_verified_at is not None
    assert row.updated_at == row.created_at  # a new row: its creation is its last change
    record = (await client.get(f"/users/{user_id}")).json()
    assert record["referral_code"].startswith("ref") and record["promo_group"] is not None
    assert [event for event, _ in await outbox()] == ["user.created"]


async def test_an_unverified_address_stays_unverified(app, db: Database, rows):
    async with db.session() as session:
        user = await create_cabinet_user(
            app, session, UserCreateRequest(), auth_type="google", email="bob@example.com"
        )
        await session.commit()
        assert user.id is not None
    row = await _one(rows, user.id)
    assert (row.auth_type, row.email, row.email_verified) == ("google", "bob@example.com", False)
    assert row.email_verified_at is None and row.password_hash is None


async def test_create_cabinet_user_refuses_a_taken_messenger_id(app, db: Database, make_user, rows):
    await make_user(messenger_id=42)
    async with db.session() as session:
        with pytest.raises(UserRuleError, match="messenger_id already exists"):
            await create_cabinet_user(app, session, UserCreateRequest(messenger_id=42), auth_type="email")
    assert len(await rows(User)) == 1


async def test_verify_email_and_password_move_updated_at(db: Database, make_user, rows, utc_time):
    made = await make_user(first_name="Ann")
    async with db.session() as session:
        user = await session.get(User, made["id"])
        assert user is not None
        set_password_hash(session, user, "hash2")
        verify_email(session, user, "ann@example.com", "oauth_google")
        await session.commit()
    row = await _one(rows, made["id"])
    assert (row.email, row.email_verified, row.email_verification_source) == (
        "ann@example.com",
        True,
        "oauth_google",
    )
    assert row.password_hash == "hash2"
    assert row.updated_at == row.email_verified_at
    assert row.updated_at > utc_time(made["updated_at"])


async def test_a_detached_row_is_written_too(db: Database, make_user, rows):
    made = await make_user()
    async with db.session() as session:
        user = await session.get(User, made["id"])
        assert user is not None
        session.expunge(user)
    async with db.session() as session:
        set_password_hash(session, user, "hash3")
        await session.commit()
    assert (await _one(rows, made["id"])).password_hash == "hash3"


async def test_a_login_is_recorded_without_changing_the_user(db: Database, make_user, rows, utc_time):
    made = await make_user()
    at = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    async with db.session() as session:
        user = await session.get(User, made["id"])
        assert user is not None
        record_cabinet_login(session, user, at)
        await session.commit()
    row = await _one(rows, made["id"])
    assert row.cabinet_last_login == at
    assert row.updated_at == utc_time(made["updated_at"])


async def test_linking_a_messenger_id_fills_missing_names_and_drops_kept_totals(
    app, db: Database, client, make_user, rows, utc_time
):
    made = await make_user(first_name="Ann")
    search = {"search": "777001"}
    assert (await client.get("/users", params=search)).json()["total"] == 0  # now kept
    async with db.session() as session:
        user = await session.get(User, made["id"])
        assert user is not None
        link_messenger_id(app, session, user, 777001, username="ann_m", first_name="Anna", last_name=None)
        await session.commit()
    row = await _one(rows, made["id"])
    assert (row.messenger_id, row.username, row.first_name, row.last_name) == (777001, "ann_m", "Ann", None)
    assert row.updated_at > utc_time(made["updated_at"])
    assert (await client.get("/users", params=search)).json()["total"] == 1


async def test_touch_moves_only_updated_at(db: Database, make_user, rows, utc_time):
    made = await make_user(first_name="Ann")
    async with db.session() as session:
        await touch(session, made["id"])
        await session.commit()
    row = await _one(rows, made["id"])
    assert row.updated_at > utc_time(made["updated_at"])
    assert (row.first_name, row.status, row.email) == ("Ann", "active", None)
