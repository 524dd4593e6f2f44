"""Leagues: members and roles, invites and share links, players, and the standings."""
