"""Shared by every layer: the error types with their exit codes, and byte units."""
