"""subsvc plugin `media`: uploads staged through the messenger, signed cabinet downloads."""
