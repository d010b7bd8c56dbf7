"""/openapi.json, /docs and /redoc: only when IS_DOCS_ENABLED, valid OpenAPI 3.1, offline assets."""

from __future__ import annotations

import pytest
from openapi_spec_validator import validate

DOCS = [{"IS_DOCS_ENABLED": True}]


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc", "/docs/assets/swagger-ui-bundle.js"])
async def test_docs_are_404_when_disabled(anon_client, path):
    r = await anon_client.get(path)
    assert (r.status_code, r.json()) == (404, {"detail": "Not Found"})


@pytest.mark.parametrize("subsvc_settings_overrides", DOCS)
async def test_openapi_document_is_valid_and_describes_the_endpoints(anon_client):
    r = await anon_client.get("/openapi.json")
    assert r.status_code == 200
    document = r.json()
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert document["components"]["securitySchemes"]["APIKeyHeader"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
    }
    assert document["components"]["securitySchemes"]["HTTPBearer"] == {"type": "http", "scheme": "bearer"}
    op = document["paths"]["/probe/items/{item_id}"]["post"]
    params = {(p["in"], p["name"]): p for p in op["parameters"]}
    assert params[("path", "item_id")]["required"] is True
    assert params[("query", "limit")]["schema"]["maximum"] == 200
    assert params[("header", "x-trace")]["required"] is False
    assert op["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/NoteIn"
    }
    assert "422" in op["responses"]
    assert document["paths"]["/health"]["get"].get("security") is None
    assert document["paths"]["/cabinet/probe/me"]["get"]["security"] == [{"HTTPBearer": []}]
    assert {"name": "probe", "description": "Probe endpoints."} in document["tags"]
    assert "/docs" not in document["paths"]
    assert not [
        name for name in document["components"]["schemas"] if name.endswith(("_query", "_path", "_header"))
    ]


@pytest.mark.parametrize("subsvc_settings_overrides", DOCS)
async def test_docs_pages_load_their_assets_from_this_server(anon_client):
    for page, asset in [
        ("/docs", "/docs/assets/swagger-ui-bundle.js"),
        ("/redoc", "/docs/assets/redoc.standalone.js"),
    ]:
        r = await anon_client.get(page)
        assert r.status_code == 200 and asset in r.text
        assert "http://" not in r.text and "https://" not in r.text  # nothing from the internet
        js = await anon_client.get(asset)
        assert js.status_code == 200 and len(js.content) > 100_000
    assert (await anon_client.get("/docs/assets/../../etc/passwd")).status_code == 404
    r = await anon_client.get("/doc", follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (307, "/docs")
