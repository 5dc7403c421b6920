# From "GPU memory not freed after deleting a Hugging Face model": a tiny BERT, built, run, deleted.
import gc

import torch
from transformers import BertConfig, BertModel

device = "cuda" if torch.cuda.is_available() else "cpu"
config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128)
model = BertModel(config).to(device)
out = model(torch.randint(0, 1000, (4, 32), device=device))
del model, out
gc.collect()
if device == "cuda":
    torch.cuda.empty_cache()
print("done")
