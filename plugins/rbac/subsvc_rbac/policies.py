"""Access policies: their conditions (checked when written) and how the gate applies them.

A policy *applies* to a permission ``section:action`` when its ``resource`` pattern matches
the section, one of its ``actions`` patterns matches the action, and every condition holds:

- ``time_range`` ``{"start": "HH:MM", "end": "HH:MM"}``: the current UTC time is in
  ``[start, end)``; a range whose start is after its end runs overnight (22:00–06:00).
- ``ip_whitelist`` ``["10.0.0.0/8", "192.0.2.7", ...]``: an allow-list; the condition holds
  when the client's address is **outside** it (or unknown), so a deny policy with it denies
  every address but the listed ones.
- ``max_actions_per_hour``: accepted and ignored, as in the reference.

The first applicable ``deny`` policy, highest priority first, refuses the call. ``allow``
policies never override a deny and refuse nothing.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable, Mapping
from datetime import datetime, time
from fnmatch import fnmatchcase
from typing import Any

from subsvc_rbac.grants import PolicyRule
from subsvc_rbac.registry import split

log = logging.getLogger("subsvc.rbac")
KNOWN_CONDITIONS = ("time_range", "ip_whitelist", "max_actions_per_hour")
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _clock(value: Any) -> time:
    if not isinstance(value, str) or len(value) != 5 or value[2] != ":":
        raise ValueError(f"{value!r} is not a time of day as HH:MM")
    return time(int(value[:2]), int(value[3:]))


def validate_conditions(conditions: Mapping[str, Any]) -> dict[str, Any]:
    """The conditions as stored, or :class:`ValueError` naming what is wrong."""
    unknown = sorted(set(conditions) - set(KNOWN_CONDITIONS))
    if unknown:
        raise ValueError(f"unknown conditions: {', '.join(unknown)} (known: {', '.join(KNOWN_CONDITIONS)})")
    result = dict(conditions)
    if "time_range" in conditions:
        window = conditions["time_range"]
        if not isinstance(window, Mapping) or set(window) != {"start", "end"}:
            raise ValueError('time_range must be {"start": "HH:MM", "end": "HH:MM"} (UTC)')
        start, end = _clock(window["start"]), _clock(window["end"])
        if start == end:
            raise ValueError("time_range start and end must differ")
        result["time_range"] = {"start": window["start"], "end": window["end"]}
    if "ip_whitelist" in conditions:
        entries = conditions["ip_whitelist"]
        if not isinstance(entries, list) or not entries or not all(isinstance(e, str) for e in entries):
            raise ValueError("ip_whitelist must be a non-empty list of addresses or networks (CIDR)")
        for entry in entries:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"ip_whitelist entry {entry!r} is not an address or a network") from None
    if "max_actions_per_hour" in conditions:
        limit = conditions["max_actions_per_hour"]
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError("max_actions_per_hour must be a positive integer")
    return result


def in_time_range(window: Any, moment: time) -> bool:
    """Is ``moment`` in ``[start, end)``? A malformed range holds never."""
    try:
        start, end = _clock(window["start"]), _clock(window["end"])
    except (KeyError, TypeError, ValueError):
        return False
    if start <= end:
        return start <= moment < end
    return moment >= start or moment < end


def _networks(entries: Any) -> list[IPNetwork]:
    networks = []
    for entry in entries if isinstance(entries, list) else ():
        try:
            networks.append(ipaddress.ip_network(str(entry), strict=False))
        except ValueError:
            continue
    return networks


def outside_allow_list(entries: Any, client_ip: str | None) -> bool:
    """True when ``client_ip`` is unknown or in none of the listed networks."""
    if client_ip is None:
        return True
    try:
        address = ipaddress.ip_address(client_ip)
    except ValueError:
        return True
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not any(address in network for network in _networks(entries))


def conditions_hold(conditions: Mapping[str, Any], now: datetime, client_ip: str | None) -> bool:
    if "time_range" in conditions and not in_time_range(conditions["time_range"], now.time()):
        return False
    return "ip_whitelist" not in conditions or outside_allow_list(conditions["ip_whitelist"], client_ip)


def matches(rule: PolicyRule, permission: str) -> bool:
    section, action = split(permission)
    if not fnmatchcase(section, rule.resource):
        return False
    return any(fnmatchcase(action, pattern) for pattern in rule.actions)


def denying_policy(
    rules: Iterable[PolicyRule],
    role_ids: Iterable[int],
    permission: str,
    now: datetime,
    client_ip: str | None,
) -> PolicyRule | None:
    """The first applicable deny policy among the global ones and those of ``role_ids``."""
    held = set(role_ids)
    for rule in rules:
        if rule.role_id is not None and rule.role_id not in held:
            continue
        if not matches(rule, permission) or not conditions_hold(rule.conditions, now, client_ip):
            continue
        if rule.effect == "deny":
            return rule
    return None
