"""The lecture shell: a lecture's first lines, its flags and the paths it may use (stdlib only)."""
