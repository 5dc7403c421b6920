"""nn.DataParallel over every GPU: replicas on each, then del and empty_cache."""
import torch

print("FIDELITY devices %d" % torch.cuda.device_count())
model = torch.nn.DataParallel(torch.nn.Linear(4096, 4096)).cuda()
out = model(torch.randn(512, 4096, device="cuda"))
print("FIDELITY output %s on cuda:%d" % (tuple(out.shape), out.device.index))
del model, out
torch.cuda.empty_cache()
print("FIDELITY after empty_cache: %s MiB reserved" % [torch.cuda.memory_reserved(i) >> 20 for i in range(torch.cuda.device_count())])
