"""Presentation: console tables and units, text charts, sentences, the command line."""
