"""What the TF GPU sweep carries (tf_gpu_sweep.sh), decided from the product's own plan.

  plan DIR RELEASE...        each release's gpu plan as sweep makes it (adhoc.plan, on the saved
                             index page DIR/tfidx): DIR/req/in-RELEASE.txt (its pins, companions
                             included) and DIR/req/plan-RELEASE.json (its Python and CUDA base)
  groups DIR GROUP:RELEASE...
                             DIR/groups/GROUP.txt, the files each group holds: `small` every wheel
                             that is neither TensorFlow nor an NVIDIA library (all releases', 200 MB),
                             the index page, and the 22.04 base (DIR/jammy.tar.xz) where a release's
                             plan names one; each other group a release's TF wheel and the NVIDIA
                             wheels its pins name (DIR/req/out-RELEASE.txt) that no earlier group
                             carried
"""
import json
import os
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

BASE_2204 = "ubuntu22.04"  # the stand-in DIR/jammy.tar.xz is made for


def plan(folder, releases):
    from harness.environments import adhoc

    req = Path(folder, "req")
    for release in releases:
        chosen = adhoc.plan([Requirement(f"tensorflow=={release}")], "gpu", Path(folder, "tfidx").resolve().as_uri())
        (req / f"in-{release}.txt").write_text("".join(p + "\n" for p in chosen.packages))
        (req / f"plan-{release}.json").write_text(json.dumps({"python": chosen.python, "base": chosen.base}))
        print(release, chosen.python, chosen.base, " ".join(chosen.packages))


def _plan_of(folder, release):
    return json.loads(Path(folder, "req", f"plan-{release}.json").read_text())


def pinned(req_file):
    with open(req_file) as handle:
        lines = (line.split("#")[0].strip() for line in handle)
        return {canonicalize_name(name): version for name, _, version in (line.partition("==") for line in lines if "==" in line)}


def groups(folder, specs):
    wheels = sorted(os.listdir(os.path.join(folder, "wh")))
    seen = set()
    for spec in specs:
        group, release = spec.split(":")
        if group == "small":
            chosen = [w for w in wheels if not w.startswith(("nvidia_", "tensorflow-"))] + ["tfidx"]
            needs_2204 = any(BASE_2204 in _plan_of(folder, s.split(":")[1])["base"] for s in specs)
            chosen += ["jammy.tar.xz"] if needs_2204 else []
        else:
            pins = pinned(os.path.join(folder, "req", f"out-{release}.txt"))
            python = "cp" + _plan_of(folder, release)["python"].replace(".", "")
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
    {"plan": plan, "groups": groups}[sys.argv[1]](sys.argv[2], sys.argv[3:])
