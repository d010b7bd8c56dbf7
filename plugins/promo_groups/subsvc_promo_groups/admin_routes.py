"""`/cabinet/admin/promo-groups` (Cabinet Admin, tag "Admin Promo Groups"): the promo group
operations for the cabinet's administrators, each gated by its `promo_groups:*` permission.

The handlers are the Web API's (:mod:`subsvc_promo_groups.routes`), declared again under the
cabinet admin paths: one implementation of the rules, answers and error texts for both areas.
"""

from __future__ import annotations

from subsvc.api import Router
from subsvc_promo_groups import routes

router = Router(area="cabinet-admin", tag="Admin Promo Groups")
BASE = "/cabinet/admin/promo-groups"
NOT_FOUND = {404: routes.NOT_FOUND}

router.get(BASE, permission=routes.READ)(routes.list_promo_groups)
router.get(BASE + "/{group_id}", permission=routes.READ, responses=NOT_FOUND)(routes.get_promo_group)
router.post(BASE, status_code=201, permission=routes.CREATE, responses=routes.NAME_TAKEN)(
    routes.create_promo_group_endpoint
)
router.patch(BASE + "/{group_id}", permission=routes.EDIT, responses={**NOT_FOUND, **routes.NAME_TAKEN})(
    routes.update_promo_group_endpoint
)
router.delete(
    BASE + "/{group_id}",
    status_code=204,
    permission=routes.DELETE,
    responses={**NOT_FOUND, **routes.UNDELETABLE},
)(routes.delete_promo_group_endpoint)
