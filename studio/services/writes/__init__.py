"""The one path every change to labels takes: edits, undos, bulk writes and the derived sets that follow them."""
