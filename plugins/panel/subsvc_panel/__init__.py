"""subsvc plugin `panel`: the VPN panel's REST client, nodes, squads, inbounds, system
statistics and the administrators' traffic monitoring."""

__version__ = "0.1.0"
