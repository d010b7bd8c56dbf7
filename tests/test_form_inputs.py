"""Form inputs (subsvc.api.forms): multipart files and text fields, urlencoded fields, their
422s, the body-size limit, and how OpenAPI shows them."""

from __future__ import annotations

import pytest

FILE = {"file": ("cert.p12", b"\x00\x01binary", "application/x-pkcs12")}


async def test_a_file_and_text_fields_are_parsed(client):
    r = await client.post(
        "/probe/upload",
        files={"file": ("a.txt", b"hello", "text/plain")},
        data={"note": "hi", "copies": "2", "tags": ["x", "y"]},
    )
    assert r.status_code == 200, r.text
    assert r.json() == {
        "filename": "a.txt",
        "content_type": "text/plain",
        "content": "hello",
        "note": "hi",
        "copies": 2,
        "tags": ["x", "y"],
    }


async def test_defaults_apply_to_absent_fields(client):
    r = await client.post("/probe/upload", files=FILE)
    assert r.status_code == 200, r.text
    assert (r.json()["note"], r.json()["copies"], r.json()["tags"]) == ("", 1, None)


async def test_a_missing_file_and_bad_fields_are_reported_together(client):
    r = await client.post(
        "/probe/upload", data={"note": "far too long", "copies": "9"}, files={"other": ("x", b"x")}
    )
    assert r.status_code == 422
    by_loc = {tuple(item["loc"]): item for item in r.json()["detail"]}
    assert by_loc[("body", "file")] == {
        "type": "missing",
        "loc": ["body", "file"],
        "msg": "Field required",
        "input": None,
    }
    assert by_loc[("body", "note")]["type"] == "string_too_long"
    assert by_loc[("body", "copies")]["type"] == "less_than_equal"


async def test_text_where_a_file_is_expected_is_refused(client):
    r = await client.post("/probe/upload", data={"file": "not a file"}, files={"other": ("x", b"x")})
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "file_type"
    assert r.json()["detail"][0]["loc"] == ["body", "file"]


async def test_a_json_body_is_an_empty_form(client):
    r = await client.post("/probe/upload", json={"file": "x"})
    assert r.status_code == 422
    assert [item["loc"] for item in r.json()["detail"]] == [["body", "file"]]


async def test_a_malformed_multipart_body_is_a_422(client):
    headers = {"Content-Type": "multipart/form-data; boundary=xyz"}
    r = await client.post(
        "/probe/upload",
        content=b"--xyz\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--xyz--\r\n",
        headers=headers,
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "form_invalid"


async def test_text_fields_obey_the_input_rules(client):
    r = await client.post("/probe/upload", files=FILE, data={"note": "a\x00b"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["type"] == "string_invalid_character"


async def test_urlencoded_fields(client):
    r = await client.post("/probe/form", data={"name": "x", "count": "3"})
    assert r.status_code == 200, r.text
    assert r.json() == {"name": "x", "count": 3}
    missing = await client.post("/probe/form", data={})
    assert missing.status_code == 422
    assert missing.json()["detail"][0]["loc"] == ["body", "name"]


@pytest.mark.parametrize("subsvc_settings_overrides", [{"MAX_BODY_BYTES": 1000}])
async def test_a_form_above_the_body_limit_is_413(client, subsvc_settings_overrides):
    r = await client.post("/probe/upload", files={"file": ("big", b"x" * 5000)})
    assert r.status_code == 413


@pytest.mark.parametrize("subsvc_settings_overrides", [{"MAX_BODY_BYTES": 1000}])
async def test_an_endpoint_may_accept_a_larger_body_still_limited(client, subsvc_settings_overrides):
    r = await client.post("/probe/upload-large", files={"file": ("big", b"x" * 5000)})
    assert (r.status_code, r.json()) == (200, {"size": 5000})
    r = await client.post("/probe/upload-large", files={"file": ("big", b"x" * 25_000)})
    assert (r.status_code, r.json()) == (413, {"detail": "Request body is larger than 20000 bytes"})

    async def chunks():  # no Content-Length: counted as it streams in
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n'
        for _ in range(30):
            yield b"x" * 1000
        yield b"\r\n--b--\r\n"

    headers = {"Content-Type": "multipart/form-data; boundary=b"}
    r = await client.post("/probe/upload-large", content=chunks(), headers=headers)
    assert r.status_code == 413
    r = await client.post("/probe/upload", files={"file": ("big", b"x" * 5000)})
    assert (r.status_code, r.json()) == (413, {"detail": "Request body is larger than 1000 bytes"})


async def test_openapi_shows_the_form_as_the_contract_does(anon_client, app):
    from subsvc.api.openapi import build_document

    endpoints = [e for e in app.state.endpoints if e.path in ("/probe/upload", "/probe/form")]
    document = build_document(endpoints, title="t", version="1")
    upload = document["paths"]["/probe/upload"]["post"]
    name = "Body_upload_probe_upload_post"
    assert upload["requestBody"] == {
        "required": True,
        "content": {"multipart/form-data": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
    }
    body = document["components"]["schemas"][name]
    assert body["required"] == ["file"]
    assert body["properties"]["file"] == {"type": "string", "format": "binary", "title": "File"}
    assert body["properties"]["note"]["default"] == ""
    assert set(upload["responses"]) >= {"413", "422"}
    form = document["paths"]["/probe/form"]["post"]
    assert list(form["requestBody"]["content"]) == ["application/x-www-form-urlencoded"]
