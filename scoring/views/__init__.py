"""Views, one module per page family: the table, history, players, leagues, accounts."""
