"""Backups and downloads: the JSON export and its import, and the CSV exports."""
