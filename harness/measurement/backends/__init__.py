"""Backends run a cell's agent somewhere: a local interpreter (process, also for virtualenvs) or a
container (docker).

Orchestration (runner.py) sees only the ``Backend`` / ``RunningCell`` protocols in base.py;
prepare.py picks and builds the backend of each environment. Only the docker backend talks to
the engine, and it is imported lazily, so the process path needs neither the docker SDK nor nox.
"""
