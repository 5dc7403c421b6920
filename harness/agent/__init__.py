# The agent is a resource run INSIDE environments (python agent.py SPEC), not a module of the
# host package: nothing here is imported by the harness. This file only makes packaging ship it.
