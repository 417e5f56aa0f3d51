"""Pixels to boards: finds the board on a screenshot and reads its cells."""
