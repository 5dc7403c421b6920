"""A kernel the build has no code for on this GPU, as torch 1.0.1's cuDNN step said on an H100."""
META = {"timeout": 60}
checkpoint("ready")
raise RuntimeError("cuda runtime error (8) : invalid device function at /pytorch/aten/src/THC/THCGeneral.cpp:405")
