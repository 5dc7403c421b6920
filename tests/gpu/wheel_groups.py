"""Which carried files each group of one loan holds (tf_gpu_sweep.sh pieces): DIR/groups/GROUP.txt.

`small` holds every wheel that is neither TensorFlow nor an NVIDIA library (all releases', 200 MB),
the saved index page, and where 2.15.1 is among the releases the 22.04 base (its Python 3.10);
each other group a release's TF wheel and the NVIDIA wheels its pins name that no earlier group
carried. Usage: wheel_groups.py DIR GROUP:RELEASE...
"""
import os
import sys

from packaging.utils import canonicalize_name, parse_wheel_filename


def pinned(req_file):
    with open(req_file) as handle:
        lines = (line.split("#")[0].strip() for line in handle)
        return {canonicalize_name(name): version for name, _, version in (line.partition("==") for line in lines if "==" in line)}


def main(folder, specs):
    wheels = sorted(os.listdir(os.path.join(folder, "wh")))
    seen = set()
    for spec in specs:
        group, release = spec.split(":")
        if group == "small":
            chosen = [w for w in wheels if not w.startswith(("nvidia_", "tensorflow-"))] + ["tfidx"]
            chosen += ["jammy.tar.xz"] if any(s.endswith(":2.15.1") for s in specs) else []
        else:
            pins = pinned(os.path.join(folder, "req", f"out-{release}.txt"))
            python = "cp310" if release == "2.15.1" else "cp312"
            chosen = []
            for wheel in wheels:
                name, version, _, tags = parse_wheel_filename(wheel)
                big = wheel.startswith(("nvidia_", "tensorflow-"))
                fits = any(t.interpreter in (python, "py3") for t in tags)
                if big and fits and pins.get(name) == str(version) and wheel not in seen:
                    chosen.append(wheel)
        seen.update(chosen)
        with open(os.path.join(folder, "groups", group + ".txt"), "w") as out:
            out.write("".join(("wh/" + c if c.endswith(".whl") else c) + "\n" for c in chosen))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
