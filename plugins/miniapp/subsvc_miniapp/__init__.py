"""subsvc plugin `miniapp`: the messenger mini app's API."""
