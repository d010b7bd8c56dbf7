"""Statistics: `GET /stats/overview` and `GET /stats/full`."""
