"""Plugin `bulk_actions`: one action applied to many users or subscriptions, as a durable run."""
