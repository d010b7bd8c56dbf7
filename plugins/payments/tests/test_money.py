"""Amounts as providers write them, to exact kopeks and back; a provider's JSON numbers read
exactly when asked."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
from subsvc_payments.api import exact_json, kopeks_of, provider_http, rubles_text

from subsvc.testing_server import LoopbackServer


@pytest.mark.parametrize(
    ("rubles", "kopeks"),
    [
        ("150.00", 15_000),
        ("0.01", 1),
        (" 199.99 ", 19_999),
        ("1e2", 10_000),
        (150, 15_000),
        (Decimal("150.5"), 15_050),
        (Decimal("12345678.99"), 1_234_567_899),
        ("999999999999999.99", 99_999_999_999_999_999),
        ("-5.10", -510),
    ],
)
def test_an_amount_in_rubles_is_exact_kopeks(rubles, kopeks):
    assert kopeks_of(rubles) == kopeks


@pytest.mark.parametrize(
    "rubles",
    [
        "150.001",
        Decimal("0.005"),
        "1.0000000000000000000000000000001",  # beyond Decimal's 28 digits: still a fraction of a kopek
        "1e-999999999",
        150.0,
        True,
        None,
        "",
        "abc",
        "NaN",
        "Infinity",
        "1e15",
        "1e400",
        "1e999999999",  # beyond the context's exponents: refused, not an Overflow
        "-1e999999999",
        [1],
    ],
)
def test_what_is_not_a_whole_number_of_kopeks_is_refused(rubles):
    with pytest.raises(ValueError):
        kopeks_of(rubles)


@pytest.mark.parametrize(
    ("kopeks", "text"), [(15_000, "150.00"), (15_050, "150.50"), (1, "0.01"), (0, "0.00"), (-510, "-5.10")]
)
def test_kopeks_are_written_with_two_decimals(kopeks, text):
    assert rubles_text(kopeks) == text
    assert kopeks_of(text) == kopeks


def test_decimals_are_written_as_json_numbers_with_their_digits():
    body = {"amount": Decimal("150.50"), "items": [Decimal("0.01"), 2, "x", None, True], "ключ": "значение"}
    assert json.loads(exact_json(body), parse_float=Decimal) == body
    assert exact_json({"a": Decimal("150.50")}) == '{"a": 150.50}'
    with pytest.raises(ValueError):
        exact_json([Decimal("NaN")])


async def test_json_numbers_are_written_and_read_exactly_when_asked():
    received = []

    async def answer(request):
        received.append(await request.body())
        return Response(b'{"amount": 199.99, "count": 2}', media_type="application/json")

    server_app = Starlette(routes=[Route("/", answer, methods=["GET", "POST"])])
    app = Starlette()
    async with LoopbackServer(server_app) as server:
        http = provider_http(app, "exact", server.url, 5)
        try:
            exact = await http.call("POST", "/", json_body={"amount": Decimal("0.10")}, exact_numbers=True)
            assert exact == {"amount": Decimal("199.99"), "count": 2}
            assert received == [b'{"amount": 0.10}']
            assert type((await http.call("GET", "/"))["amount"]) is float
        finally:
            await http.aclose()
