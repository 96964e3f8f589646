"""Loading files into the project: each import one transaction, refused whole on bad input."""
