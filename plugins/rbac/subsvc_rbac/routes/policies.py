"""Tag `Admin RBAC Policies`: access policies (deny by UTC time range, by IP allow-list)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request

from subsvc.api import Router
from subsvc.auth.principal import Principal
from subsvc_rbac import service
from subsvc_rbac.routes import PREFIX, acting
from subsvc_rbac.schemas import (
    PolicyCreateRequest,
    PolicyDeletedResponse,
    PolicyResponse,
    PolicyUpdateRequest,
)

router = Router(area="cabinet-admin", tag="Admin RBAC Policies", prefix=PREFIX)
TARGET_403 = "A policy of a role at or above your level, or of every role without being a superadmin"


@router.get("/policies", permission="roles:read")
async def list_policies(
    session: AsyncSession, role_id: int | None = None, include_inactive: bool = False
) -> list[PolicyResponse]:
    """Active policies (all with `include_inactive`), highest priority first; `role_id`
    keeps those of one role."""
    return await service.policy_responses(
        session, await service.list_policies(session, role_id, include_inactive)
    )


@router.post(
    "/policies",
    status_code=201,
    permission="roles:create",
    responses={403: TARGET_403, 404: "Referenced role not found"},
)
async def create_policy(
    request: Request, session: AsyncSession, principal: Principal, payload: PolicyCreateRequest
) -> PolicyResponse:
    """Create a policy for one role (`role_id`) or, superadmins only, for every role.
    `conditions`: `time_range` `{start, end}` (UTC `HH:MM`, overnight allowed), `ip_whitelist`
    (addresses or CIDR networks; the policy applies to calls from outside the list),
    `max_actions_per_hour` (accepted, not enforced)."""
    actor = await acting(request, session, principal)
    return await service.policy_response(session, await service.create_policy(session, actor, payload))


@router.put(
    "/policies/{policy_id}",
    permission="roles:edit",
    responses={403: TARGET_403, 404: "Policy not found, or Referenced role not found"},
)
async def update_policy(
    request: Request,
    session: AsyncSession,
    principal: Principal,
    policy_id: int,
    payload: PolicyUpdateRequest,
) -> PolicyResponse:
    """Change the fields sent; `role_id: null` makes the policy apply to every role."""
    actor = await acting(request, session, principal)
    changes = payload.model_dump(exclude_unset=True)
    return await service.policy_response(
        session, await service.update_policy(session, actor, policy_id, changes)
    )


@router.delete(
    "/policies/{policy_id}", permission="roles:delete", responses={403: TARGET_403, 404: "Policy not found"}
)
async def delete_policy(
    request: Request, session: AsyncSession, principal: Principal, policy_id: int
) -> PolicyDeletedResponse:
    """Delete a policy."""
    await service.delete_policy(session, await acting(request, session, principal), policy_id)
    return PolicyDeletedResponse(policy_id=policy_id)
