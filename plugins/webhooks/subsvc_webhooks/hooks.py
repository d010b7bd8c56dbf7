"""Runtime hooks of the webhooks plugin: pending deliveries are written with every event, and
sent while the app runs."""

from __future__ import annotations

from sqlalchemy.orm import Session
from starlette.applications import Starlette

from subsvc.events import EventWrite
from subsvc.hookspecs import hookimpl
from subsvc.services import services
from subsvc_webhooks import service
from subsvc_webhooks.delivery import Deliverer, deliverer


@hookimpl
def startup(app: Starlette) -> None:
    """Write pending deliveries with every event, and be ready to send them."""
    app.state.webhook_deliverer = Deliverer(app)
    jobs = services(app).jobs

    def written(session: Session, count: int) -> None:
        if count:
            jobs.enqueue_after_commit(session, service.DELIVER_JOB)

    deliveries = EventWrite(
        "webhook_deliveries", service.deliveries_from, service.delivery_parameters, written
    )
    services(app).events.write_with_events(deliveries)


@hookimpl
async def shutdown(app: Starlette) -> None:
    await deliverer(app).stop()
