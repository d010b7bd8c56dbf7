"""Public offer and privacy policy: one page per language, upserted, with an enabled flag."""

from __future__ import annotations

import asyncio
import re

import pytest
from subsvc_pages.models import PrivacyPolicy, PublicOffer

PAGES = [
    pytest.param("/pages/public-offer", PublicOffer, "Public offer", id="public-offer"),
    pytest.param("/pages/privacy-policy", PrivacyPolicy, "Privacy policy", id="privacy-policy"),
]


def _languages_and_content(response) -> tuple[str, str, str]:
    body = response.json()
    return body["requested_language"], body["language"], body["content"]


def _long_text() -> str:
    """About 8000 characters in paragraphs of varied length, separated by blank lines."""
    paragraphs = [f"Paragraph {n}. " + "word " * (40 + 37 * (n % 5)) for n in range(40)]
    text = "\n\n".join(p.strip() for p in paragraphs)
    text = text[: text.rfind("\n\n", 0, 8100)]
    assert 7500 < len(text) <= 8100
    return text


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_missing_page_is_404(client, path, model, name):
    r = await client.get(path)
    assert r.status_code == 404
    assert r.json() == {"detail": f"{name} not found"}


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_put_creates_then_updates_one_row_per_language(client, rows, utc_time, path, model, name):
    r = await client.put(path, json={"content": "First text"})
    assert r.status_code == 200
    created = r.json()
    assert created["requested_language"] == "ru"
    assert created["language"] == "ru"
    assert created["is_enabled"] is True  # a new page is enabled unless told otherwise
    assert created["content"] == "First text"
    assert created["content_pages"] == ["First text"]
    utc_time(created["created_at"])

    r = await client.put(path, json={"language": "ru", "content": "Second text"})
    assert r.status_code == 200
    updated = r.json()
    assert updated["content"] == "Second text"
    assert updated["created_at"] == created["created_at"]
    assert utc_time(updated["updated_at"]) > utc_time(created["updated_at"])

    stored = await rows(model)
    assert [(s.language, s.content, s.is_enabled) for s in stored] == [("ru", "Second text", True)]

    r = await client.get(path)
    assert r.status_code == 200
    assert r.json() == updated


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_is_enabled_is_kept_unless_given(client, rows, path, model, name):
    r = await client.put(path, json={"content": "Text", "is_enabled": False})
    assert r.json()["is_enabled"] is False

    r = await client.put(path, json={"content": "Text 2"})
    assert r.json()["is_enabled"] is False
    assert [s.is_enabled for s in await rows(model)] == [False]

    r = await client.put(path, json={"content": "Text 3", "is_enabled": None})
    assert r.json()["is_enabled"] is False

    r = await client.put(path, json={"content": "Text 4", "is_enabled": True})
    assert r.json()["is_enabled"] is True
    assert [(s.content, s.is_enabled) for s in await rows(model)] == [("Text 4", True)]


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_include_disabled(client, path, model, name):
    await client.put(path, json={"content": "Hidden", "is_enabled": False})

    r = await client.get(path)
    assert r.status_code == 200
    assert (r.json()["content"], r.json()["is_enabled"]) == ("Hidden", False)

    r = await client.get(path, params={"include_disabled": "false"})
    assert r.status_code == 404
    assert r.json() == {"detail": f"{name} disabled"}

    await client.put(path, json={"content": "Shown", "is_enabled": True})
    r = await client.get(path, params={"include_disabled": "false"})
    assert r.status_code == 200
    assert r.json()["content"] == "Shown"


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_language_normalisation_and_fallback(client, rows, path, model, name):
    r = await client.put(path, json={"language": "EN-gb", "content": "English"})
    assert (r.json()["requested_language"], r.json()["language"]) == ("en", "en")
    assert [s.language for s in await rows(model)] == ["en"]

    r = await client.get(path, params={"language": "en-US"})
    assert _languages_and_content(r) == ("en", "en", "English")

    r = await client.get(path, params={"language": "de"})
    assert r.status_code == 404  # no default-language page to fall back to
    assert r.json() == {"detail": f"{name} not found"}

    await client.put(path, json={"content": "Русский"})
    r = await client.get(path, params={"language": "de"})
    assert r.status_code == 200
    assert _languages_and_content(r) == ("de", "ru", "Русский")

    r = await client.get(path, params={"language": "de", "fallback": "false"})
    assert r.status_code == 404
    assert r.json() == {"detail": f"{name} not found"}


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_long_content_is_split_into_pages(client, path, model, name):
    text = _long_text()
    r = await client.put(path, json={"content": text})
    assert r.status_code == 200
    pages = r.json()["content_pages"]
    assert len(pages) >= 3
    assert all(0 < len(page) <= 3500 for page in pages)
    assert re.sub(r"\s+", "", "".join(pages)) == re.sub(r"\s+", "", text)
    paragraphs = text.split("\n\n")
    assert [p for page in pages for p in page.split("\n\n")] == paragraphs  # cut only between paragraphs
    assert (await client.get(path)).json()["content_pages"] == pages


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_empty_content_has_no_pages(client, path, model, name):
    r = await client.put(path, json={"content": ""})
    assert r.status_code == 200
    assert (r.json()["content"], r.json()["content_pages"]) == ("", [])
    r = await client.put(path, json={"content": "  \n\n  "})
    assert r.json()["content_pages"] == []


async def test_public_offer_and_privacy_policy_are_separate(client, rows):
    await client.put("/pages/public-offer", json={"content": "Offer"})
    assert await rows(PrivacyPolicy) == []
    r = await client.get("/pages/privacy-policy")
    assert r.status_code == 404
    assert r.json() == {"detail": "Privacy policy not found"}

    await client.put("/pages/privacy-policy", json={"content": "Policy", "is_enabled": False})
    assert [(s.content, s.is_enabled) for s in await rows(PublicOffer)] == [("Offer", True)]
    assert (await client.get("/pages/public-offer")).json()["content"] == "Offer"


async def test_put_requires_content(client):
    r = await client.put("/pages/public-offer", json={"language": "ru"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "content"]
    assert r.json()["detail"][0]["type"] == "missing"


@pytest.mark.parametrize(("path", "model", "name"), PAGES)
async def test_concurrent_first_writes_make_one_row(client, rows, path, model, name):
    responses = await asyncio.gather(
        *(client.put(path, json={"language": "en", "content": f"text {n}"}) for n in range(6))
    )
    assert [r.status_code for r in responses] == [200] * 6
    stored = await rows(model, language="en")
    assert len(stored) == 1
    assert stored[0].content in {f"text {n}" for n in range(6)}
