"""A fork worker that fails while the script itself ends normally: exit code 0, the child's 1."""
import multiprocessing


def work():
    raise RuntimeError("the worker failed on purpose")


if __name__ == "__main__":
    child = multiprocessing.get_context("fork").Process(target=work)
    child.start()
    child.join(60)
    print("FIDELITY child exit code %s" % child.exitcode)
