"""The table: a game is started, its deals are entered, edited and undone, and the scoreboard
shows the score (every write in ``services``, stored derived values in ``derived``)."""
