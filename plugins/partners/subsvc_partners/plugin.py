"""Plugin `partners`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_partners import hooks, notices
from subsvc_partners.admin_partner_routes import router as admin_partners
from subsvc_partners.admin_withdrawal_routes import router as admin_withdrawals
from subsvc_partners.cabinet_routes import partner, withdrawal
from subsvc_partners.models import (
    Partner,
    PartnerApplication,
    PartnerSettingsRow,
    WithdrawalAudit,
    WithdrawalRequest,
)
from subsvc_partners.settings import PartnersSettings
from subsvc_partners.web_routes import router as web

plugin = Plugin(
    models=[PartnerSettingsRow, Partner, PartnerApplication, WithdrawalRequest, WithdrawalAudit],
    endpoints=[partner, withdrawal, admin_partners, admin_withdrawals, web],
    permissions={
        "partners": ["read", "approve", "edit", "revoke", "settings"],
        "withdrawals": ["read", "approve", "reject"],
    },
    tags={"partners": "Referrers and partners: lists, statistics, individual commission."},
    settings=PartnersSettings,
    jobs=notices.JOBS,
    hooks=[hooks],
)
