"""subsvc plugin `servers`: panel squads offered for sale, their availability, promo-group
restrictions and the users connected to them."""

__version__ = "0.1.0"
