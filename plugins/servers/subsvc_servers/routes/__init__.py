"""The servers plugin's endpoints: the Web API's and the cabinet administrators'."""

from subsvc_servers.routes import cabinet, web

endpoints = [*web.router.endpoints, *cabinet.router.endpoints]

__all__ = ["endpoints"]
