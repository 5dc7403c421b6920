"""Spawned workers (a spawn Pool, a spawn Process) as they see themselves: argv, __main__, the agent
nowhere; under repro each also takes checkpoints at its cleanup lines."""
import multiprocessing
import os
import sys


def look(n):
    block = bytearray(8 << 20)
    del block
    main = sys.modules["__main__"]
    ours = sorted(m for m in sys.modules if m in ("agent", "spawned", "instrument", "sampled", "framework_view", "json"))
    return "worker argv %s, __main__ %s %s, agent modules %s, n %d" % (
        sys.argv, main.__name__, os.path.basename(main.__file__), ours, n)


def child(queue):
    queue.put(look(99))


if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        for line in sorted(set(pool.map(look, range(2)))):
            print("FIDELITY %s" % line)
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    print("FIDELITY %s" % queue.get())
    process.join()
    print("FIDELITY process exit %s" % process.exitcode)
