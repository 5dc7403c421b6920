# A report whose script never finishes: the repro must still say which jax it ran.
import time

import jax.numpy as jnp

x = jnp.zeros((256, 256))
while True:
    time.sleep(0.1)
