"""`GET /cabinet/balance` and `GET /cabinet/balance/transactions`: the user's own balance and
history, moved through the Web API."""

from __future__ import annotations

from datetime import datetime


async def move(client, user_id: int, amount: int, description: str | None = None) -> None:
    body = {"amount_kopeks": amount, **({"description": description} if description else {})}
    response = await client.post(f"/users/{user_id}/balance", json=body)
    assert response.status_code == 200, response.text


async def test_balance_in_kopeks_and_rubles(client, make_user, cabinet):
    user = await make_user()
    async with cabinet(user["id"]) as http:
        assert (await http.get("/cabinet/balance")).json() == {"balance_kopeks": 0, "balance_rubles": 0.0}
        await move(client, user["id"], 12_345)
        assert (await http.get("/cabinet/balance")).json() == {
            "balance_kopeks": 12_345,
            "balance_rubles": 123.45,
        }


async def test_balance_of_an_unknown_user_is_404(cabinet):
    for user_id in (4242, 2**40):
        async with cabinet(user_id) as http:
            response = await http.get("/cabinet/balance")
        assert (response.status_code, response.json()) == (404, {"detail": "User not found"})
    async with cabinet(2**40) as http:  # beyond any id: no query reaches the database
        assert (await http.get("/cabinet/balance/transactions")).status_code == 404


async def test_transactions_are_the_users_own_newest_first_in_pages(client, make_user, cabinet):
    user, other = await make_user(), await make_user()
    await move(client, user["id"], 1_000, "first")
    await move(client, user["id"], -300, "second")
    await move(client, user["id"], 200, "third")
    await move(client, other["id"], 5_000, "not yours")
    async with cabinet(user["id"]) as http:
        first = (await http.get("/cabinet/balance/transactions?per_page=2")).json()
        second = (await http.get("/cabinet/balance/transactions?per_page=2&page=2")).json()
        beyond = (await http.get("/cabinet/balance/transactions?page=1000000")).json()
        too_far = await http.get("/cabinet/balance/transactions?page=99999999999999")
        withdrawals = (await http.get("/cabinet/balance/transactions?type=withdrawal")).json()
        default = (await http.get("/cabinet/balance/transactions")).json()
    assert [item["description"] for item in first["items"]] == ["third", "second"]
    assert {k: first[k] for k in ("total", "page", "per_page", "pages")} == {
        "total": 3, "page": 1, "per_page": 2, "pages": 2,
    }  # fmt: skip
    assert [item["description"] for item in second["items"]] == ["first"]
    assert (beyond["items"], beyond["total"], beyond["pages"]) == ([], 3, 1)
    assert too_far.status_code == 422  # beyond the INTEGER range every page number keeps to
    assert [(e["loc"], e["type"]) for e in too_far.json()["detail"]] == [
        (["query", "page"], "less_than_equal")
    ]
    assert (default["per_page"], default["page"], len(default["items"])) == (20, 1, 3)
    (withdrawal,) = withdrawals["items"]
    assert set(withdrawal) == {
        "id", "type", "amount_kopeks", "amount_rubles", "description", "payment_method", "is_completed",
        "created_at", "completed_at",
    }  # fmt: skip
    assert {k: withdrawal[k] for k in ("type", "amount_kopeks", "amount_rubles", "payment_method")} == {
        "type": "withdrawal", "amount_kopeks": 300, "amount_rubles": 3.0, "payment_method": "manual",
    }  # fmt: skip
    assert withdrawal["is_completed"] is True
    assert datetime.fromisoformat(withdrawal["completed_at"]).tzinfo is not None
    assert (withdrawals["total"], withdrawals["pages"]) == (1, 1)


async def test_an_empty_history_has_no_pages(make_user, cabinet):
    user = await make_user()
    async with cabinet(user["id"]) as http:
        body = (await http.get("/cabinet/balance/transactions")).json()
    assert body == {"items": [], "total": 0, "page": 1, "per_page": 20, "pages": 0}


async def test_page_bounds_are_validated(make_user, cabinet):
    user = await make_user()
    async with cabinet(user["id"]) as http:
        for query, field in (("page=0", "page"), ("per_page=101", "per_page"), ("per_page=0", "per_page")):
            response = await http.get(f"/cabinet/balance/transactions?{query}")
            assert response.status_code == 422
            assert response.json()["detail"][0]["loc"] == ["query", field]
