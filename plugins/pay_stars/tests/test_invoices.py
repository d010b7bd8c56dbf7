"""The arithmetic of a Stars invoice: stars asked, kopeks they are worth, the payload."""

from __future__ import annotations

from decimal import Decimal

import pytest
from subsvc_pay_stars.invoices import Invoice, kopeks_for, stars_for


@pytest.mark.parametrize(
    ("kopeks", "rate", "stars", "normalized"),
    [
        (10_000, "1", 100, 10_000),  # whole stars: nothing changes
        (10_000, "1.3", 77, 10_010),  # 76.92 stars → 77, worth 100.10 RUB
        (10_000, "1.79", 56, 10_024),  # 55.87 → 56
        (100, "1.79", 1, 179),  # 0.56 → 1
        (100, "3", 1, 300),  # 0.33 → 0 → at least one star
        (65, "1.3", 1, 130),  # 0.5 → 1
        (195, "1.3", 2, 260),  # 1.5 → 2 (half up, not to even)
        (325, "1.3", 3, 390),  # 2.5 → 3 (half up, not to even)
        (1_000_000, "1.3", 7_692, 999_960),  # 7692.3 → 7692
        (12_345, "0.01", 12_345, 12_345),  # a kopek a star
        (10_000, "1.2345", 81, 9_999),  # 81 × 123.45 = 9999.45 → 9999
        (2_000_000_000, "1.79", 11_173_184, 1_999_999_936),  # large: exact, no float
    ],
)
def test_stars_and_the_normalised_amount(kopeks: int, rate: str, stars: int, normalized: int):
    assert stars_for(kopeks, Decimal(rate)) == stars
    assert kopeks_for(stars, Decimal(rate)) == normalized
    assert stars_for(normalized, Decimal(rate)) == stars  # the normalised amount asks as many


@pytest.mark.parametrize(
    ("payload", "invoice"),
    [
        ("stars-topup:1:100:10000", Invoice(1, 100, 10_000)),
        ("stars-topup:987654321:7692:999960", Invoice(987_654_321, 7_692, 999_960)),
        ("stars-topup:0:100:10000", None),  # no payment 0
        ("stars-topup:1:0:10000", None),
        ("stars-topup:1:100:", None),
        ("stars-topup:1:100:10000:extra", None),
        ("stars-topup:01:100:10000", None),
        ("stars-topup:-1:100:10000", None),
        ("balance_topup_5_10000_1700000000", None),  # another invoice of the bot
        ("wheel_spin_5", None),
        ("", None),
    ],
)
def test_a_payload_names_our_invoice_or_nothing(payload: str, invoice: Invoice | None):
    assert Invoice.parse(payload) == invoice
    if invoice is not None:
        assert invoice.payload == payload


def test_an_invoice_is_made_for_a_payment_at_the_rate():
    invoice = Invoice.for_payment(42, 10_000, Decimal("1.79"))
    assert invoice == Invoice(42, 56, 10_000)
    assert Invoice.parse(invoice.payload) == invoice
    assert len(invoice.payload.encode()) <= 128
    assert len(Invoice(2**63 - 1, 2_000_000_000, 2_000_000_000).payload.encode()) <= 128


@pytest.mark.parametrize(
    ("invoice", "paid_stars", "worth"),
    [
        (Invoice(1, 100, 10_000), 100, 10_000),
        (Invoice(1, 100, 10_000), 99, 9_900),
        (Invoice(1, 100, 10_000), 101, 10_100),
        (Invoice(1, 56, 10_000), 56, 10_000),  # a top-up's own price: the amount asked
        (Invoice(1, 56, 10_000), 55, 9_821),  # 9821.43
        (Invoice(1, 3, 1_000), 1, 333),  # 333.33
        (Invoice(1, 3, 1_000), 2, 667),  # 666.67
        (Invoice(1, 100, 10_000), 0, 0),
    ],
)
def test_paid_stars_are_worth_the_invoices_share(invoice: Invoice, paid_stars: int, worth: int):
    assert invoice.worth(paid_stars) == worth


@pytest.mark.parametrize("rate", ["0.01", "0.015", "0.5", "1", "1.3", "1.79", "2.5", "3", "99.99"])
def test_other_stars_are_never_worth_the_amount_asked(rate: str):
    """With a star worth at least a kopek, a payment of other stars than the invoice's is a
    mismatch for every amount: the core refuses it, never credits it as the amount asked."""
    for kopeks in [*range(100, 2_000, 7), 9_999, 10_000, 123_457, 1_000_000]:
        invoice = Invoice.for_payment(1, kopeks, Decimal(rate))
        for stars in {invoice.stars - 1, invoice.stars + 1} - {0}:
            assert invoice.worth(stars) != kopeks, (rate, kopeks, stars)
