"""Results published: preview pictures for messengers (``og:image``), the text a Share button
hands to a chat, the standings a club puts on its own site (the embed) and the JSON feed."""
