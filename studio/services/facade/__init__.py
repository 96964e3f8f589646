"""The `Project` facade, one subject per module, put together in `services/project.py`."""
