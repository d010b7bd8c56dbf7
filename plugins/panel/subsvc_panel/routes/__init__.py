"""The plugin's endpoints, by area (`common.py`: permissions and error texts they share).

- Web API, tag `panel` (`/panel/...`): `web.py`.
- Cabinet admin, tag `Cabinet Admin Panel` (`/cabinet/admin/panel/...`): `cabinet.py`.
- Traffic monitoring, tag `Admin Traffic` (`/cabinet/admin/traffic/...`): `traffic.py`.

The panel operations the Web API and the cabinet both serve are declared once, in
`operations.py`, with how each area words them (paths and operation names where they differ,
request and answer models); `web.py` and `cabinet.py` mount them and declare the rest.
"""

from __future__ import annotations

from subsvc.api import Endpoint
from subsvc_panel.routes import cabinet, traffic, web

endpoints: list[Endpoint] = [*web.router.endpoints, *cabinet.router.endpoints, *traffic.router.endpoints]
