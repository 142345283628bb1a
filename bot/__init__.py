"""Quet Games for Discord: Leroy Quet's small games, played in Discord channels."""
