"""Test helpers for apps that run panel_sync: settings that make its queue quick to test."""

from __future__ import annotations

FAST_SYNC = {
    "PANEL_SYNC_POLL_SECONDS": "0.1",
    "PANEL_SYNC_RETRY_BASE_SECONDS": "0.05",
    "PANEL_SYNC_RETRY_FACTOR": "2",
    "PANEL_SYNC_RETRY_MAX_SECONDS": "0.2",
    "PANEL_SYNC_LEASE_SECONDS": "2",
    "PANEL_SYNC_CONCURRENCY": "20",
    "PANEL_MAX_RETRIES": "0",
    "PANEL_TIMEOUT_SECONDS": "3",
}
"""Environment values: polls every 0.1 s, retries after 0.05 s (at most 0.2 s), leases of 2 s,
no retries inside one panel call and a 3 s timeout."""
