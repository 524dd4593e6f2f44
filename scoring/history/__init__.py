"""History: lists of past and current series, a series' score sheet, a player's record."""
