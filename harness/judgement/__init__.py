"""What the readings mean: per-step verdicts, seed claims, growth per loop iteration."""
