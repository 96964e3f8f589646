"""What the screens show, computed from a project: overview, review session, bank view, passage highlights."""
