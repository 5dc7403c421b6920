"""A script that hides every GPU before importing torch sees none."""
import os

os.environ["CUDA_VISIBLE_DEVICES"] = ""
import torch  # noqa: E402

print("FIDELITY cuda available %s, devices %d" % (torch.cuda.is_available(), torch.cuda.device_count()))
