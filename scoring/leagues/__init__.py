"""Leagues: members and roles, invites and share links, and the standings with their ratings."""
