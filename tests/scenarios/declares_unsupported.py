"""Says itself that its API is missing here."""
META = {"timeout": 60}
checkpoint("ready")
raise Unsupported("set_memory_growth needs TF >= 2.0")
