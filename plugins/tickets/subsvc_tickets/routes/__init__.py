"""The endpoints of the three areas."""

from subsvc_tickets.routes.admin import router as admin_router
from subsvc_tickets.routes.cabinet import router as cabinet_router
from subsvc_tickets.routes.web import router as web_router

routers = [web_router, cabinet_router, admin_router]
