"""The fake speaks Crypto Pay's protocol: the token header, the ok/result envelope and its
errors, GET with a query as well as POST with JSON."""

from __future__ import annotations

import httpx2
from subsvc_pay_cryptobot.testing import TOKEN, FakeCryptoPay


async def _call(fake: FakeCryptoPay, method: str, token: str | None = TOKEN, **kwargs) -> httpx2.Response:
    headers = {} if token is None else {"Crypto-Pay-API-Token": token}
    async with httpx2.AsyncClient(base_url=fake.url) as http:
        return await http.request(kwargs.pop("verb", "POST"), f"/{method}", headers=headers, **kwargs)


async def test_the_token_is_checked_and_errors_are_enveloped(fake_cryptopay):
    me = await _call(fake_cryptopay, "getMe")
    assert (me.status_code, me.json()["ok"], me.json()["result"]["app_id"]) == (200, True, 1)
    for token in (None, "1:wrong"):
        refused = await _call(fake_cryptopay, "getMe", token=token)
        assert (refused.status_code, refused.json()) == (
            401,
            {"ok": False, "error": {"code": 401, "name": "UNAUTHORIZED"}},
        )
    unknown = await _call(fake_cryptopay, "transferAll")
    assert (unknown.status_code, unknown.json()["error"]["name"]) == (405, "METHOD_NOT_FOUND")


async def test_invoices_by_post_and_by_get(fake_cryptopay):
    created = await _call(
        fake_cryptopay, "createInvoice", json={"currency_type": "fiat", "fiat": "RUB", "amount": "99.90"}
    )
    invoice = created.json()["result"]
    assert (invoice["status"], invoice["amount"], invoice["fiat"]) == ("active", "99.90", "RUB")
    assert "expiration_date" not in invoice  # no expires_in: it does not expire
    listed = await _call(
        fake_cryptopay, "getInvoices", verb="GET", params={"invoice_ids": str(invoice["invoice_id"])}
    )
    assert listed.json() == {"ok": True, "result": {"items": [invoice]}}
    wrong = await _call(
        fake_cryptopay, "createInvoice", json={"currency_type": "fiat", "fiat": "XYZ", "amount": "1"}
    )
    assert (wrong.status_code, wrong.json()["error"]["name"]) == (400, "FIAT_INVALID")
    paid = fake_cryptopay.pay(invoice["invoice_id"], asset="USDT")
    assert (paid["status"], paid["paid_amount"], paid["paid_fiat_rate"]) == ("paid", "1.0460733", "95.50")
