"""What other plugins may use of the cabinet e-mail plugin (the rest is private).

- :func:`send_marketing`: a marketing e-mail to a user, with the unsubscribe link and the
  RFC 8058 headers; skipped for users who unsubscribed (and addresses not verified).
- :func:`may_receive` / :func:`is_unsubscribed`: for an e-mail broadcast to skip users.
- :func:`unsubscribe_url`: a user's signed, expiring unsubscribe link.
"""

from __future__ import annotations

from subsvc_cabinet_email.marketing import may_receive, send_marketing
from subsvc_cabinet_email.unsubscribe import is_unsubscribed, unsubscribe_url

__all__ = ["is_unsubscribed", "may_receive", "send_marketing", "unsubscribe_url"]
