"""campaigns: an index on the partner of a campaign (a partner's campaigns, revoking a partner)"""

from __future__ import annotations

from alembic import op

revision = "campaigns_0003"
down_revision = "campaigns_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_advertising_campaigns_partner_user_id", "advertising_campaigns", ["partner_user_id"])


def downgrade() -> None:
    op.drop_index("ix_advertising_campaigns_partner_user_id", table_name="advertising_campaigns")
