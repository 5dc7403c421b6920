"""Build the gpu images of some pins as `sweep`/`--with` will (same definition, same build options:
the wheelhouse, offline), so that a sweep on a lent machine finds them built: they build while the
next wheels travel. Usage: prebuild_pins.py INDEX_URL WHEELHOUSE PIN...; progress on stdout."""
import sys
import time
from pathlib import Path

import docker

from harness.environments import adhoc, images


def main(index_url, wheelhouse, pins):
    client = docker.from_env(timeout=1800)
    for pin in pins:
        env = adhoc.environment(pin, "gpu", index_url=index_url)
        began = time.time()
        try:
            images.build(client, env, "gpu", images.BuildOptions(wheelhouse=Path(wheelhouse), offline=True), lambda _: None)
            print(f"built {pin} in {time.time() - began:.0f} s", flush=True)
        except Exception as exc:  # noqa: BLE001 - the sweep builds it again and records why
            print(f"not built {pin}: {exc}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
