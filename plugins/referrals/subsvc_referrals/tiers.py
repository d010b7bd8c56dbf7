"""Recurring commission tiers: ``"threshold:percent,..."`` by the referrer's paying referees."""

from __future__ import annotations


def parse_tiers(text: str) -> tuple[tuple[int, int], ...]:
    """The tiers sorted by threshold; :class:`ValueError` for a malformed list."""
    tiers: list[tuple[int, int]] = []
    for part in text.replace(";", ",").split(","):
        if not part.strip():
            continue
        threshold, sep, percent = part.partition(":")
        if not sep:
            raise ValueError(f"tier {part.strip()!r} is not threshold:percent")
        pair = int(threshold), int(percent)
        if pair[0] < 0 or not 0 <= pair[1] <= 100:
            raise ValueError(f"tier {part.strip()!r}: threshold >= 0 and percent 0..100")
        tiers.append(pair)
    return tuple(sorted(tiers))


def tier_percent(tiers: tuple[tuple[int, int], ...], paying_referees: int) -> int | None:
    """The percent of the highest threshold reached, ``None`` below the first one."""
    reached = [percent for threshold, percent in tiers if threshold <= paying_referees]
    return reached[-1] if reached else None
