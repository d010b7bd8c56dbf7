"""Every Web API operation of the plugin: the reference's tags and counts, and 401 without a
token (before the input is looked at)."""

from __future__ import annotations

import re

TAGS = {"main-menu": 9, "menu-layout": 33, "Admin Menu Layout": 3, "Admin Button Styles": 3}


async def test_the_operations_and_their_credentials(app, anon_client):
    ours = [e for e in app.state.endpoints if e.tag in TAGS]
    assert {tag: sum(1 for e in ours if e.tag == tag) for tag in TAGS} == TAGS
    for endpoint in ours:
        if endpoint.area != "web":
            continue
        path = re.sub(r"\{[^}]+\}", "1", endpoint.path)
        response = await anon_client.request(endpoint.method, path, json={"broken": True})
        assert response.status_code == 401, (endpoint.method, path, response.text)
