"""Presentation: console tables and units, text charts, display objects and sentences."""
