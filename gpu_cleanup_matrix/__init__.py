"""`python -m gpu_cleanup_matrix`: the project's name for the `harness` package's command line."""
