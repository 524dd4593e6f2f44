"""Views, one module per page family: the table, history, players, leagues, accounts.

What they share is how they refuse: bad input answers 422 with the page and its messages, and a
change another device made first answers 409 with the fresh page. htmx swaps both in like a 200
(``templates/base.html``), and ``static/js/app.js`` shows them where the form was.
"""

UNPROCESSABLE = 422
CONFLICT = 409
