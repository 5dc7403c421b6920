"""Allocate a host buffer, free it: the RSS meter must see the rise and the fall."""
META = {"families": ["any"], "params": {"mib": 512}, "timeout": 60}
checkpoint("ready")
buf = bytearray(PARAMS["mib"] * 1024 * 1024)
for i in range(0, len(buf), 4096):  # touch every page so it is resident
    buf[i] = 1
checkpoint("peak")
del buf
checkpoint("after_del")
