"""A spawn worker running a function of the script: the child finds it in the script's __main__."""
import multiprocessing


def square(n):
    return n * n


if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print("FIDELITY squares %s" % pool.map(square, range(5)))
