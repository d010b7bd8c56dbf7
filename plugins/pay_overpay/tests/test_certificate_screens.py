"""The certificate screens over HTTP: status, upload (multipart), removal; the database
holds the certificate, the file at its path is written from it; 503 while unconfigured."""

from __future__ import annotations

import asyncio
import stat

import pytest
from cryptography.hazmat.primitives.serialization import pkcs12
from subsvc_pay_overpay.models import OverpayCertificate

URL = "/cabinet/admin/overpay/certificate"


def _upload(data: bytes, passphrase: str | None = None, name: str = "client.p12") -> dict:
    fields = {"files": {"file": (name, data, "application/x-pkcs12")}}
    if passphrase is not None:
        fields["data"] = {"passphrase": passphrase}
    return fields


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [("GET", {}), ("POST", _upload(b"x")), ("DELETE", {})],
    ids=["status", "upload", "delete"],
)
async def test_unconfigured_answers_503_with_what_to_set(admin, method, kwargs):
    r = await admin.request(method, URL, **kwargs)
    assert r.status_code == 503
    assert r.json() == {
        "detail": "Overpay is not configured: set OVERPAY_USERNAME, OVERPAY_PASSWORD and OVERPAY_PROJECT_ID"
    }


async def test_status_before_any_upload(admin, overpay):
    path = overpay()
    r = await admin.get(URL)
    assert r.status_code == 200
    assert r.json() == {
        "uploaded": False,
        "valid": False,
        "path": str(path),
        "subject": None,
        "not_valid_after": None,
        "has_chain": None,
        "env_locked_path": True,
        "env_locked_passphrase": False,
    }


@pytest.mark.parametrize("kind", ["p12", "pem"])
async def test_upload_keeps_it_in_the_database_and_writes_its_file(
    admin, overpay, make_certificate, rows, kind
):
    path = overpay()
    r = await admin.post(URL, **_upload(make_certificate(kind, passphrase="pw", chain=True), "pw"))
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["subject"] == "CN=overpay-test"
    assert (answer["has_chain"], answer["path"], answer["warning"]) == (True, str(path), None)
    assert (answer["env_locked_path"], answer["env_locked_passphrase"]) == (True, False)
    (row,) = await rows(OverpayCertificate)
    assert row.content == path.read_bytes() and row.passphrase == "pw"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key, certificate, chain = pkcs12.load_key_and_certificates(path.read_bytes(), b"pw")  # usable as PKCS#12
    assert key is not None and certificate is not None and len(chain) == 1
    status = (await admin.get(URL)).json()
    assert (status["uploaded"], status["valid"], status["subject"]) == (True, True, "CN=overpay-test")
    assert status["not_valid_after"] == answer["not_valid_after"]


async def test_a_settings_passphrase_reencrypts_the_file(admin, overpay, make_certificate, rows):
    path = overpay(OVERPAY_P12_PASSPHRASE="from-settings")
    r = await admin.post(URL, **_upload(make_certificate(passphrase="uploaded"), "uploaded"))
    assert r.status_code == 200, r.text
    assert r.json()["env_locked_passphrase"] is True
    (row,) = await rows(OverpayCertificate)
    assert row.passphrase is None  # the settings hold it
    assert pkcs12.load_key_and_certificates(path.read_bytes(), b"from-settings")[1] is not None
    assert (await admin.get(URL)).json()["valid"] is True


async def test_a_new_upload_replaces_the_old_one(admin, overpay, make_certificate, rows):
    overpay()
    first, second = make_certificate(), make_certificate(days=400)
    answers = await asyncio.gather(admin.post(URL, **_upload(first)), admin.post(URL, **_upload(second)))
    assert [a.status_code for a in answers] == [200, 200]
    assert len(await rows(OverpayCertificate)) == 1


async def test_expiring_soon_is_a_warning(admin, overpay, make_certificate):
    overpay()
    r = await admin.post(URL, **_upload(make_certificate(days=10)))
    assert r.status_code == 200
    assert r.json()["warning"].startswith("The certificate expires in 9 days")


@pytest.mark.parametrize(
    ("options", "passphrase", "detail"),
    [
        ({}, "wrong", "Not a PKCS#12 file, or the passphrase does not open it"),
        ({"passphrase": "pw"}, "", "Not a PKCS#12 file, or the passphrase does not open it"),
        ({"with_key": False}, "", "The file holds no private key"),
        ({"kind": "pem", "foreign_key": True}, "", "The private key does not belong to the certificate"),
        ({"days": -1}, "", "The certificate expired on"),
        ({"kind": "pem", "with_key": False}, "", "The PEM file holds no private key"),
        (
            {"kind": "pem", "passphrase": "pw"},
            "bad",
            "The PEM private key cannot be read with this passphrase",
        ),
    ],
    ids=["wrong-passphrase", "no-passphrase", "no-key", "foreign-key", "expired", "pem-no-key", "pem-wrong"],
)
async def test_unusable_uploads_are_400_and_change_nothing(
    admin, overpay, make_certificate, rows, options, passphrase, detail
):
    path = overpay()
    r = await admin.post(URL, **_upload(make_certificate(**options), passphrase))
    assert r.status_code == 400
    assert r.json()["detail"].startswith(detail), r.json()
    assert await rows(OverpayCertificate) == [] and not path.exists()


@pytest.mark.parametrize(
    "data",
    [b"", b"   ", b"not a certificate", b"-----BEGIN CERTIFICATE-----\nxx\n-----END CERTIFICATE-----\n"],
)
async def test_not_a_certificate_is_400(admin, overpay, data):
    overpay()
    r = await admin.post(URL, **_upload(data))
    assert r.status_code == 400
    assert r.json()["detail"]


async def test_the_file_is_a_required_field(admin, overpay):
    overpay()
    r = await admin.post(URL, data={"passphrase": "x"}, files={"other": ("x", b"x")})
    assert r.status_code == 422
    assert r.json()["detail"] == [
        {"type": "missing", "loc": ["body", "file"], "msg": "Field required", "input": None}
    ]


async def test_delete_removes_the_row_and_the_file(admin, overpay, make_certificate, rows):
    path = overpay()
    assert (await admin.post(URL, **_upload(make_certificate()))).status_code == 200
    r = await admin.delete(URL)
    assert r.status_code == 204 and r.content == b""
    assert await rows(OverpayCertificate) == [] and not path.exists()
    assert (await admin.delete(URL)).status_code == 204  # nothing left: still 204
    assert (await admin.get(URL)).json()["uploaded"] is False


async def test_status_writes_the_file_again_from_the_database(admin, overpay, make_certificate, rows):
    path = overpay()
    assert (await admin.post(URL, **_upload(make_certificate()))).status_code == 200
    path.unlink()  # another instance, or a lost volume
    assert (await admin.get(URL)).json()["valid"] is True
    (row,) = await rows(OverpayCertificate)
    assert path.read_bytes() == row.content


async def test_default_path_is_under_the_working_directory(admin, overpay, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    overpay(OVERPAY_P12_PATH=None)
    answer = (await admin.get(URL)).json()
    assert answer["path"] == str(tmp_path / "data" / "overpay" / "client.p12")
    assert answer["env_locked_path"] is False
