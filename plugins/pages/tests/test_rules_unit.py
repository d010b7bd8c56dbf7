"""The pure rules of the service: language normalisation and splitting content into pages."""

from __future__ import annotations

import re

import pytest
from subsvc_pages.service import MAX_PAGE_LENGTH, candidate_languages, normalize_language, split_content


@pytest.mark.parametrize(
    ("given", "expected"),
    [("ru", "ru"), ("en-US", "en"), ("EN", "en"), ("pt-BR-x", "pt"), ("-US", "ru"), ("", "ru"), (None, "ru")],
)
def test_normalize_language(given, expected):
    assert normalize_language(given) == expected


def test_candidate_languages():
    assert candidate_languages("en", True) == ["en", "ru"]
    assert candidate_languages("en", False) == ["en"]
    assert candidate_languages("ru", True) == ["ru"]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_short_and_empty_content():
    assert split_content("") == []
    assert split_content(None) == []
    assert split_content(" \n\n \r\n ") == []
    assert split_content("  Hello\r\n\r\nworld  ") == ["Hello\n\nworld"]
    assert split_content("x" * MAX_PAGE_LENGTH) == ["x" * MAX_PAGE_LENGTH]


def test_pages_break_between_paragraphs():
    paragraphs = [f"{n} " + "y" * 1200 for n in range(6)]  # ~1200 each: two fit a page, three do not
    pages = split_content("\n\n".join(paragraphs))
    assert pages == ["\n\n".join(paragraphs[i : i + 2]) for i in (0, 2, 4)]


def test_blank_lines_with_spaces_separate_paragraphs():
    text = ("a" * 2000) + "\n   \n" + ("b" * 2000)
    assert split_content(text) == ["a" * 2000, "b" * 2000]


def test_long_paragraph_is_cut_at_lines_then_words():
    lines = "\n".join(f"line {n} " + "z" * 90 for n in range(80))  # one paragraph of ~7.9k chars
    pages = split_content(lines)
    assert len(pages) == 3
    assert all(len(p) <= MAX_PAGE_LENGTH for p in pages)
    assert all(p.startswith("line ") for p in pages)  # each page starts at a line
    assert _squash("".join(pages)) == _squash(lines)

    words = " ".join(f"w{n:04d}" for n in range(1500))  # ~9k chars, no line breaks
    pages = split_content(words)
    assert all(len(p) <= MAX_PAGE_LENGTH for p in pages)
    assert " ".join(pages).split(" ") == words.split(" ")  # no word is cut


def test_text_without_spaces_is_cut_hard():
    pages = split_content("q" * 8000)
    assert [len(p) for p in pages] == [3500, 3500, 1000]


def test_custom_page_length():
    assert split_content("aa bb cc", max_length=5) == ["aa bb", "cc"]
