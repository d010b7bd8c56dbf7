"""Policy conditions as pure rules: time windows at their edges, addresses, malformed input."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest
from subsvc_rbac.grants import PolicyRule
from subsvc_rbac.policies import denying_policy, in_time_range, outside_allow_list, validate_conditions


@pytest.mark.parametrize(
    ("start", "end", "moment", "inside"),
    [
        ("09:00", "18:00", time(9, 0), True),  # start inclusive
        ("09:00", "18:00", time(17, 59), True),
        ("09:00", "18:00", time(18, 0), False),  # end exclusive
        ("09:00", "18:00", time(8, 59), False),
        ("22:00", "06:00", time(23, 30), True),  # overnight
        ("22:00", "06:00", time(0, 0), True),
        ("22:00", "06:00", time(5, 59), True),
        ("22:00", "06:00", time(6, 0), False),
        ("22:00", "06:00", time(12, 0), False),
    ],
)
def test_time_range(start, end, moment, inside):
    assert in_time_range({"start": start, "end": end}, moment) is inside


@pytest.mark.parametrize("window", [{"start": "9"}, {"start": "xx:yy", "end": "10:00"}, "09:00-10:00", None])
def test_malformed_stored_time_range_never_holds(window):
    assert in_time_range(window, time(9, 30)) is False


@pytest.mark.parametrize(
    ("entries", "address", "outside"),
    [
        (["10.0.0.0/8"], "10.1.2.3", False),
        (["10.0.0.0/8"], "11.1.2.3", True),
        (["192.0.2.7"], "192.0.2.7", False),
        (["192.0.2.7"], "::ffff:192.0.2.7", False),  # IPv4-mapped IPv6
        (["2001:db8::/32"], "2001:db8::5", False),
        (["10.0.0.0/8"], None, True),  # unknown address: not on the list
        (["10.0.0.0/8"], "not-an-ip", True),
        (["garbage", "10.0.0.0/8"], "10.0.0.1", False),
    ],
)
def test_ip_allow_list(entries, address, outside):
    assert outside_allow_list(entries, address) is outside


def test_validate_conditions_keeps_what_is_valid():
    conditions = {"time_range": {"start": "22:00", "end": "06:00"}, "ip_whitelist": ["10.0.0.0/8"]}
    assert validate_conditions(conditions) == conditions
    assert validate_conditions({"max_actions_per_hour": 5}) == {"max_actions_per_hour": 5}
    with pytest.raises(ValueError, match="unknown conditions: weekday"):
        validate_conditions({"weekday": 1})


def _rule(**fields) -> PolicyRule:
    values = {"id": 1, "name": "p", "role_id": None, "priority": 0, "effect": "deny", "resource": "users",
              "actions": ("*",)}  # fmt: skip
    values.update(fields)
    return PolicyRule(**values)


def test_denying_policy_respects_roles_effects_and_globs():
    now = datetime(2026, 1, 1, 12, tzinfo=UTC)
    rules = [
        _rule(name="other role", role_id=9),
        _rule(name="allow", effect="allow"),
        _rule(name="wrong section", resource="tickets"),
        _rule(name="night only", conditions={"time_range": {"start": "22:00", "end": "06:00"}}),
        _rule(name="reads", actions=("re*",)),
    ]
    assert denying_policy(rules, [1], "users:read", now, "127.0.0.1").name == "reads"
    assert denying_policy(rules, [1], "users:edit", now, "127.0.0.1") is None
    assert denying_policy(rules, [9], "users:edit", now, "127.0.0.1").name == "other role"
