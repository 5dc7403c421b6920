"""The environment definitions (matrix/environments.toml) and where the project's data lives: read by every layer
above the framework registry (the judge's claims need the pins), importing nothing but it and common/."""
