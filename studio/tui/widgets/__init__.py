"""Widgets and modal screens shared by the studio's screens."""
