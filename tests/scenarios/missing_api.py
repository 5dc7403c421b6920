"""Calls an API this version does not have: unsupported, not an error."""
import json
META = {"timeout": 60}
checkpoint("ready")
json.this_api_does_not_exist_in_this_version()
