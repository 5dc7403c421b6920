"""A fork Pool whose workers run a function of the script with a cleanup line: under repro each takes its checkpoints."""
import multiprocessing


def work(n):
    block = bytearray(4 << 20)
    del block
    return n


if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as pool:
        print("FIDELITY", sorted(pool.map(work, range(4))))
