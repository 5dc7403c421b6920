"""What ``bisect`` can compare between releases, and the default amount that counts as a change: the
choices the command line offers, kept apart from the bisection so every command starts without it."""

CRITERIA = {
    "left": "memory left after the last cleanup checkpoint",
    "growth": "growth per loop iteration (the steepest looped checkpoint)",
    "peak": "the most held at any moment (checkpoints and the 100 Hz timeline)",
    "label": "the reading at the checkpoint whose label contains --label",
}
DEFAULT_THRESHOLD_MIB = {"left": 64.0, "growth": 8.0, "peak": 64.0, "label": 64.0}
