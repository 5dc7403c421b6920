"""CuPy imported, then a fork worker does the GPU work: bare, the child can start CUDA."""
import multiprocessing

import cupy


def work(queue):
    queue.put(int(cupy.ones(1024, dtype=cupy.float32).sum().get()))


if __name__ == "__main__":
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=work, args=(queue,))
    child.start()
    child.join(120)
    print("FIDELITY child exit code %s, said %s" % (child.exitcode, queue.get(timeout=5) if child.exitcode == 0 else None))
    x = cupy.zeros(256 * 1024 * 1024, dtype=cupy.uint8)  # the parent too, after the child
    del x
    cupy.get_default_memory_pool().free_all_blocks()
