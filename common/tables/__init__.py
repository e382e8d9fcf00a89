"""Tables (standard library only): models, assumptions, operation counts, units, sources."""
