"""A script that ends with its own exit code."""
import sys

print("FIDELITY exiting with 3")
sys.exit(3)
