"""What to run and running it: scenarios and the catalogue, the matrix, Ray clusters, repro and bisect."""
