"""A club's seasons: their ladder rules and standings, the awards of Kozel, a club night against
what the ratings expected."""
