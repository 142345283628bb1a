"""Pillow renderers: pure functions from a game's *view* to PNG bytes (one module per game)."""
