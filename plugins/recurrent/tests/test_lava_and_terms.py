"""Lava's recurring operations (no Lava provider plugin: 503 "not available") and the
recurring-payments terms at `GET /cabinet/info/recurrent-payments` (public)."""

from __future__ import annotations

from subsvc_recurrent.settings import RecurrentSettings

BASE = "/cabinet/subscription/lava-recurrent"
NOT_AVAILABLE = {"detail": "Lava recurrent payments are not available"}
DOCUMENT = "/cabinet/info/recurrent-payments"


async def test_every_lava_operation_is_503(make_user, cabinet):
    user = await make_user()
    async with cabinet(user["id"]) as http:
        answers = [
            await http.get(BASE),
            await http.get(f"{BASE}?subscription_id=5"),
            await http.post(f"{BASE}/enable"),
            await http.post(f"{BASE}/purchase?tariff_id=1"),
            await http.post(f"{BASE}/cancel"),
        ]
        invalid = await http.post(f"{BASE}/purchase")
    assert [(r.status_code, r.json()) for r in answers] == [(503, NOT_AVAILABLE)] * 5
    assert invalid.status_code == 422


async def test_the_terms_without_a_text_are_404(anon_client):
    response = await anon_client.get(DOCUMENT)
    assert (response.status_code, response.json()) == (
        404, {"detail": "Recurring-payments document is not available"}
    )  # fmt: skip


async def test_the_terms_are_public_when_shown_in_the_cabinet(anon_client, change_settings):
    change_settings(RecurrentSettings, RECURRENT_PAYMENTS_TEXT="<b>Автоплатёж</b>: условия")
    answer = await anon_client.get(f"{DOCUMENT}?language=en")
    bad = await anon_client.get(f"{DOCUMENT}?language=x")
    change_settings(RecurrentSettings, RECURRENT_PAYMENTS_DISPLAY_MODE="bot")
    hidden = await anon_client.get(DOCUMENT)
    assert (answer.status_code, answer.json()) == (
        200,
        {"content": "<b>Автоплатёж</b>: условия", "updated_at": None},
    )
    assert bad.status_code == 422
    assert hidden.status_code == 404
