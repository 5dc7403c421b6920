"""A fork worker after the framework's import works as it does bare (CUDA starts in the child)."""
import multiprocessing
import sys

try:
    import torch
except ImportError:
    torch = None


def work(queue):
    if torch is not None and torch.cuda.is_available():
        t = torch.ones(256, 1024, 1024, device="cuda")  # 1 GiB, in the child only
        queue.put("cuda sum %d" % int(t.sum().item() / 1024))
    else:
        queue.put("cpu")


if __name__ == "__main__":
    print("FIDELITY CUDA started in the parent: %s" % (torch is not None and torch.cuda.is_initialized()))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=work, args=(queue,))
    child.start()
    child.join(120)
    print("FIDELITY child exit code %s" % child.exitcode)
    print("FIDELITY child said %s" % (queue.get(timeout=5) if child.exitcode == 0 else "nothing"))
    sys.exit(child.exitcode)
