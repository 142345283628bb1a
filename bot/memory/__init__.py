"""A server's memory of its games: what finished games leave behind."""
