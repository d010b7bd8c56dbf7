"""Plugin `pay_overpay`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_pay_overpay import hooks
from subsvc_pay_overpay.certificate import CertificateRefused
from subsvc_pay_overpay.models import OverpayCertificate
from subsvc_pay_overpay.routes import OverpayRefusal, router
from subsvc_pay_overpay.settings import OverpaySettings

plugin = Plugin(
    models=[OverpayCertificate],
    endpoints=[router],
    permissions={"settings": ["read", "edit"]},
    tags={"Cabinet Admin Overpay": "The client certificate Overpay requires (mTLS)."},
    settings=OverpaySettings,
    errors={OverpayRefusal: OverpayRefusal.answer, CertificateRefused: CertificateRefused.answer},
    hooks=[hooks],
)
