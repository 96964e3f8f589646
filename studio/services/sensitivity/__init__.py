"""How far a judge's labels move with what should not matter: prompt wording (studies), stuffed passages."""
