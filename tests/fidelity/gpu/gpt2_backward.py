"""GPT-2 made from its config (no download), one backward pass, then del, gc.collect(), empty_cache()."""
import gc

import torch
from transformers import GPT2Config, GPT2LMHeadModel

MiB = 1024 * 1024
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config()).cuda()
ids = torch.randint(0, 50257, (4, 512), device="cuda")
loss = model(ids, labels=ids).loss
loss.backward()
keep = model.lm_head.weight.detach().clone()  # a live tensor the script keeps, as scripts do
del model, loss, ids
gc.collect()
torch.cuda.empty_cache()
stats = torch.cuda.memory_stats()
print("FIDELITY after empty_cache: allocated %d MiB, reserved %d MiB, segments %d" % (
    torch.cuda.memory_allocated() // MiB, torch.cuda.memory_reserved() // MiB, stats["segment.all.current"]))
