"""The mini app's operations (Web API area, tag "miniapp", no API key: the signed init data),
one module per group, each with its router."""
