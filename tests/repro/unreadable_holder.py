import gc

import numpy as np


class Unsized(np.ndarray):
    """An array type whose size cannot be read, as a proxy or a broken buffer would be."""

    @property
    def nbytes(self):
        raise RuntimeError("this array will not say its size")


odd = Unsized((1024, 1024, 8))  # 64 MiB the search cannot size
plain = np.ones((1024, 1024, 4))  # 32 MiB
gc.collect()
print("FIDELITY unreadable done", plain.shape, odd.shape)
