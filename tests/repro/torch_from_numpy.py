import numpy as np
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
batch = np.ones((256, 1024), dtype=np.float32)
x = torch.from_numpy(batch).to(device)
y = (x * 2).sum()
print(float(y))
del x, y
