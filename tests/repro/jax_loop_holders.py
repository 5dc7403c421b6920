import jax.numpy as jnp

outputs = []
for step in range(30):
    y = jnp.ones((1024, 1024)) * step  # 4 MiB a step
    outputs.append(y)
print("FIDELITY jax loop done", len(outputs))
