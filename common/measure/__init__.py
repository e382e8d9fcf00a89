"""Measurement (numpy): the timer, this machine's roofs, its caches and the hierarchy sweep."""
