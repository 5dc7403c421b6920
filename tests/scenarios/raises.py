"""A scenario with a bug: it raises after its first checkpoint."""
META = {"timeout": 60}
checkpoint("ready")
raise ValueError("scenario bug on purpose")
