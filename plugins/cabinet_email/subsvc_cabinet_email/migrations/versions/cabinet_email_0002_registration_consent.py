"""cabinet_email: a pending registration keeps its campaign and accepted legal documents;
unsubscribes from marketing mail"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from subsvc.db.types import UTCDateTime

revision = "cabinet_email_0002"
down_revision = "cabinet_email_0001"
branch_labels = None
depends_on = None

TABLE = "cabinet_email_tokens"


def upgrade() -> None:
    with op.batch_alter_table(TABLE) as batch:
        batch.add_column(sa.Column("campaign_slug", sa.String(64), nullable=True))
        batch.add_column(sa.Column("legal_documents", sa.String(255), nullable=True))
        batch.add_column(sa.Column("consent_ip", sa.String(45), nullable=True))
    op.create_table(
        "cabinet_email_unsubscribes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, unique=True
        ),
        sa.Column("email", sa.String(255), nullable=False),
        sa.Column("unsubscribed_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("cabinet_email_unsubscribes")
    with op.batch_alter_table(TABLE) as batch:
        batch.drop_column("consent_ip")
        batch.drop_column("legal_documents")
        batch.drop_column("campaign_slug")
