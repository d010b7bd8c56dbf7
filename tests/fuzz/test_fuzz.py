"""Each operation of the OpenAPI document, fuzzed (see conftest.py), then the run's
credentials tried again: they must survive every operation."""

from __future__ import annotations

from typing import Any


def test_operation(fuzz: Any, label: str) -> None:
    findings = fuzz.fuzz(label)
    broken = fuzz.credentials_work()
    assert not broken, f"{label} took the run's credentials away: {broken}"
    failures = fuzz.failures(findings)
    assert not failures, failures
