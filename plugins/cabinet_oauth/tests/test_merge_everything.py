"""A merge of two fully loaded accounts, with every installed plugin: afterwards no row of any
table that refers to users (found from the models' foreign keys to ``users.id``, so a table
added later is covered too) names the removed user; the kept user has what moved, and the
balances add up to the kopek."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel, select
from starlette.applications import Starlette
from subsvc_billing.models import Transaction
from subsvc_cabinet_admin_users.models import UserAdminSettings
from subsvc_cabinet_auth.models import CabinetRefreshToken
from subsvc_cabinet_oauth.models import OAuthIdentity
from subsvc_cabinet_oauth.testing import account
from subsvc_promo_offers.models import ActiveDiscount, DiscountOffer
from subsvc_promocodes.models import PromoCodeDiscount, PromoCodeUse
from subsvc_rbac.models import UserRole
from subsvc_subscriptions.models import Subscription
from subsvc_users.models import User

from subsvc.db import Database
from subsvc.testing import ADMIN_MESSENGER_ID, Rows, bearer_client

Reference = tuple[str, str]
PROMOCODES = "/cabinet/admin/promocodes"
RBAC = "/cabinet/admin/rbac"


@pytest.fixture
def subsvc_plugins() -> None:
    """Every installed plugin."""
    return None


def user_references() -> list[Reference]:
    """``(table, column)`` of every column with a foreign key to ``users.id``."""
    return sorted(
        (table.name, column.name)
        for table in SQLModel.metadata.sorted_tables
        for column in table.columns
        if any(fk.column.table.name == "users" and fk.column.name == "id" for fk in column.foreign_keys)
    )


async def referring(db: Database, user_id: int) -> dict[Reference, int]:
    """How many rows of each referring column name ``user_id`` (columns with none left out)."""
    found: dict[Reference, int] = {}
    async with db.engine.connect() as connection:
        for table, column in user_references():
            query = (
                sa.select(sa.func.count()).select_from(sa.table(table)).where(sa.column(column) == user_id)
            )
            count = (await connection.execute(query)).scalar_one()
            if count:
                found[(table, column)] = count
    return found


async def balance(db: Database, user_id: int) -> int:
    async with db.session() as session:
        user = await session.get(User, user_id)
        assert user is not None
        return user.balance_kopeks


async def keyed(db: Database, model: type[SQLModel]) -> list[Any]:
    """Every row of a table keyed by its user (no ``id`` column)."""
    async with db.session() as session:
        return list((await session.exec(select(model))).all())


@pytest.fixture
def as_user(app: Starlette) -> Callable[..., Awaitable[httpx2.Response]]:
    """``await as_user(user_id, "POST", path, json=...)``: a cabinet request of that user."""

    async def call(user_id: int, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        async with bearer_client(app, app.state.jwt.access_token(user_id)) as http:
            return await http.request(method, path, **kwargs)

    return call


async def load_account(
    user_id: int,
    client: httpx2.AsyncClient,
    admin: httpx2.AsyncClient,
    as_user: Callable[..., Awaitable[httpx2.Response]],
    *,
    deposit: int,
    subscription_days: int,
    codes: list[str],
    offers: list[str],
    role_id: int,
) -> None:
    """Balance (a deposit), a subscription, promo-code activations, open offers, a role, an
    event of the notifications log, all through the API."""
    r = await client.post(f"/users/{user_id}/balance", json={"amount_kopeks": deposit})
    assert r.status_code == 200, r.text
    r = await client.post("/subscriptions", json={"user_id": user_id, "duration_days": subscription_days})
    assert r.status_code == 201, r.text
    for code in codes:
        r = await as_user(user_id, "POST", "/cabinet/promocode/activate", json={"code": code})
        assert r.status_code == 200, r.text
    for kind in offers:
        body = {"user_id": user_id, "notification_type": kind, "valid_hours": 24, "discount_percent": 10}
        r = await client.post("/promo-offers", json=body)
        assert r.status_code == 201, r.text
    r = await admin.post(f"{RBAC}/assignments", json={"user_id": user_id, "role_id": role_id})
    assert r.status_code == 201, r.text
    r = await client.post("/notifications/subscriptions", json={"event_type": "purchase", "user_id": user_id})
    assert r.status_code == 201, r.text


async def test_a_merge_leaves_no_row_on_the_removed_user(
    oauth_login, oauth_link, insert_user, client, admin, as_user, anon_client, db, rows: Rows
):
    await insert_user(messenger_id=ADMIN_MESSENGER_ID)  # user 1, the administrator
    removed = (await oauth_login("yandex", account("yandex", "y-1", email="gone@example.com"))).json()
    kept = (await oauth_login("google", account("google", "g-1"))).json()
    removed_id, kept_id = removed["user"]["id"], kept["user"]["id"]

    for code, fields in {
        "BOTH": {"type": "balance", "balance_bonus_kopeks": 1_111, "max_uses": 5},
        "ONLY": {"type": "balance", "balance_bonus_kopeks": 2_222},
        "DISC": {"type": "discount", "balance_bonus_kopeks": 15, "subscription_days": 7},
    }.items():
        r = await admin.post(PROMOCODES, json={"code": code, **fields})
        assert r.status_code == 201, r.text
    role = await admin.post(
        f"{RBAC}/roles", json={"name": "Editors", "level": 40, "permissions": ["users:read"]}
    )
    assert role.status_code == 201, role.text
    role_id = role.json()["id"]
    await load_account(
        removed_id, client, admin, as_user, deposit=5_055, subscription_days=40,
        codes=["BOTH", "ONLY", "DISC"], offers=["winback", "expiring"], role_id=role_id,
    )  # fmt: skip
    await load_account(
        kept_id, client, admin, as_user, deposit=1_001, subscription_days=10,
        codes=["BOTH"], offers=["winback"], role_id=role_id,
    )  # fmt: skip
    claimable = await client.post(
        "/promo-offers",
        json={"user_id": removed_id, "notification_type": "claim", "valid_hours": 24, "discount_percent": 20},
    )
    r = await as_user(removed_id, "POST", "/cabinet/promo/claim", json={"offer_id": claimable.json()["id"]})
    assert r.status_code == 200, r.text
    r = await admin.post(f"/cabinet/admin/users/{removed_id}/restrictions", json={"restriction_topup": True})
    assert r.status_code == 200, r.text
    invitee = await insert_user(referred_by_id=removed_id)

    before_removed, before_kept = await referring(db, removed_id), await referring(db, kept_id)
    for table in (
        "subscriptions", "transactions", "promocode_uses", "promocode_discounts", "discount_offers",
        "promo_offer_active_discounts", "user_roles", "cabinet_refresh_tokens", "oauth_identities",
        "subscription_events", "user_admin_settings",
    ):  # fmt: skip
        assert (table, "user_id") in before_removed, table
    balances = await balance(db, removed_id), await balance(db, kept_id)
    assert balances == (5_055 + 1_111 + 2_222, 1_001 + 1_111)
    transactions_before = len(await rows(Transaction))

    token = (await oauth_link(kept_id, "yandex", account("yandex", "y-1"))).json()["merge_token"]
    r = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": removed_id})
    assert r.status_code == 200, r.text
    assert r.json()["user"]["balance_kopeks"] == sum(balances)

    assert await referring(db, removed_id) == {}
    assert await balance(db, removed_id) == 0 and await balance(db, kept_id) == sum(balances)
    (gone,) = await rows(User, id=removed_id)
    assert gone.status == "deleted"
    (moved_invitee,) = await rows(User, id=invitee.id)
    assert moved_invitee.referred_by_id == kept_id

    after = await referring(db, kept_id)
    moved = {key: after.get(key, 0) - before_kept.get(key, 0) for key in after.keys() | before_kept.keys()}
    assert moved == {
        ("subscriptions", "user_id"): 1,
        ("transactions", "user_id"): before_removed[("transactions", "user_id")] + 2,  # + the transfer
        ("promocode_uses", "user_id"): 2,  # BOTH once, ONLY and DISC
        ("promocode_discounts", "user_id"): 1,
        ("discount_offers", "user_id"): 3,
        ("promo_offer_active_discounts", "user_id"): 1,
        ("promo_offer_logs", "user_id"): before_removed[("promo_offer_logs", "user_id")],
        ("user_roles", "user_id"): 0,  # a role is not moved
        ("cabinet_refresh_tokens", "user_id"): 1,  # the merge's session
        ("oauth_identities", "user_id"): 1,
        ("subscription_events", "user_id"): 1,
        ("user_admin_settings", "user_id"): 1,
        ("users", "referred_by_id"): 1,
    }
    assert len(await rows(Transaction)) == transactions_before + 2
    total = sum(t.amount_kopeks if t.type == "deposit" else -t.amount_kopeks for t in await rows(Transaction))
    assert total == sum(balances)  # the kept user's history adds up to its balance

    assert {s.status for s in await rows(Subscription)} == {"active", "disabled"}
    (kept_active,) = await rows(Subscription, status="active")
    assert kept_active.end_date > (await rows(Subscription, status="disabled"))[0].end_date
    assert [u.user_id for u in await rows(PromoCodeUse)] == [kept_id] * 3
    assert [(d.user_id, d.percent) for d in await rows(PromoCodeDiscount)] == [(kept_id, 15)]
    offers = {(o.notification_type, o.is_active, o.claimed_at is None) for o in await rows(DiscountOffer)}
    assert (
        len([o for o in await rows(DiscountOffer) if o.notification_type == "winback" and o.is_active]) == 1
    )
    assert ("expiring", True, True) in offers and ("claim", False, False) in offers
    assert [(d.user_id, d.discount_percent) for d in await keyed(db, ActiveDiscount)] == [(kept_id, 20)]
    assert [r.user_id for r in await rows(UserRole)] == [kept_id]
    assert {(i.user_id, i.provider) for i in await rows(OAuthIdentity)} == {
        (kept_id, "google"),
        (kept_id, "yandex"),
    }
    sessions = await rows(CabinetRefreshToken)
    assert {s.user_id for s in sessions} == {kept_id}
    assert [s.device_info for s in sessions if s.revoked_at is None] == ["merge"]
    (settings,) = await keyed(db, UserAdminSettings)
    assert (settings.user_id, settings.restriction_topup) == (kept_id, True)
