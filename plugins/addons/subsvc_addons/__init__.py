"""Plugin ``addons``: a subscription's add-ons and its owner's direct operations."""
