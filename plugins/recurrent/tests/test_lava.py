"""Lava's recurring operations (no Lava provider plugin: 503 "not available"). The
recurring-payments terms are the pages plugin's (its tests/test_cabinet_info.py)."""

from __future__ import annotations

BASE = "/cabinet/subscription/lava-recurrent"
NOT_AVAILABLE = {"detail": "Lava recurrent payments are not available"}


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
