"""Running one cell and reading it: the runner, the backends, the agent's wire protocol, NVML and RSS meters, processes."""
