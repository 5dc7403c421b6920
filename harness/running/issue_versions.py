"""The releases a pasted bug report states, each with the line it came from, and the Python it ran on.

Read from the formats people paste: torch's ``collect_env`` (``PyTorch version: 2.1.0+cu121``,
``Python version: 3.10.12 (main, ...)``, its ``[pip3]``/``[conda]`` lines), TensorFlow's issue templates
of every era (``- TensorFlow version (use command below): v2.0.0-rc2-26-g64c3d38 2.0.0 (problem
disappears on ... 1.14.0)``, ``### TensorFlow version`` then the value, the same for Python), JAX's
``jax.print_environment_info()`` (``jax:    0.4.23``, ``python: 3.10.8 (main, ...)``) and template answer
(``jax-0.4.14, jaxlib-0.4.14``), ``pip freeze`` / ``pip list`` / ``conda list`` lines, install lines
anywhere (``pip install tensorflow==2.12.0 psutil==5.9.4``, ``!pip install``, a Dockerfile's ``RUN pip
install`` and ``FROM python:3.11.2``), version prints (``print(torch.__version__)`` and the line it
printed) and prose (issue_prose.py). HTML comments and the templates' own instructions ("1. TF 1.0:
`python -c ...`") are not the reporter's words and are skipped. Nothing here reaches a network.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from harness.running import issue_prose
from harness.running.issue_prose import VER as _VER

# Names a report uses -> the framework's pip name (the registry's frameworks and their companions).
NAMES = {"torch": "torch", "pytorch": "torch", "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow",
         "tensorflow-cpu": "tensorflow", "tf-nightly": "tensorflow", "tf": "tensorflow", "jax": "jax", "jaxlib": "jaxlib",
         "cupy": "cupy", "keras": "keras", "torchvision": "torchvision", "numpy": "numpy", "pandas": "pandas"}
FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy")  # what a report is replayed on; the rest are companions
PYTHON = "python"  # Stated.package of the interpreter the report ran on
_NAME = r"(torch|pytorch|tensorflow(?:-gpu|-cpu)?|tf-nightly|jax|jaxlib|cupy(?:-cuda\w+)?|keras|torchvision)"
COLLECT_ENV = re.compile(r"^\s*PyTorch version:\s*" + _VER + r"\s*$")
# The other fields of torch's collect_env and of the issue templates name the toolkit, the compiler, the OS or the
# driver, never the framework: "CUDA used to build PyTorch: 9.0.176" is CUDA's release.
OTHER_FIELD = re.compile(r"^\s*[-*]?\s*\**\s*(?:CUDA used to build PyTorch|ROCM used to build PyTorch|Is debug build|"
                         r"GCC version|Clang version|CMake version|Libc version|OS|Python platform|Is CUDA available|"
                         r"CUDA runtime version|CUDA_MODULE_LOADING set to|GPU models and configuration|"
                         r"Nvidia driver version|cuDNN version|HIP runtime version|MIOpen runtime version|"
                         r"Is XNNPACK available|Bazel version|GPU model and memory|CUDA/cuDNN version|"
                         r"GCC/Compiler version|OS Platform and Distribution|Mobile device)\s*\**\s*:", re.I)
_ANY = r"([A-Za-z][\w.-]*)"  # any distribution: the report's other imports are pinned as it states them (psutil==5.9.4)
FREEZE = re.compile(r"^\s*(?:\[(?:pip\d?|conda)\]\s+)?" + _ANY + r"(?:\[[\w,]+\])?\s*==\s*" + _VER + r"\s*$", re.I)
LISTED = re.compile(r"^\s*(?:\[(?:pip\d?|conda)\]\s+)?" + _ANY + r"\s{2,}" + _VER + r"(?:\s+\S+){0,3}\s*$", re.I)
JAX_INFO = re.compile(r"^\s*(jax|jaxlib|python):\s+" + _VER + r"(?:\s+\(.*)?\s*$")
DASHED = re.compile(r"(?<![\w.-])(jax|jaxlib)-" + _VER + r"(?![\w-])", re.I)  # JAX's template: jax-0.4.14, jaxlib-0.4.14
# TensorFlow's template fields and PyTorch's of 2018-2021 ("- PyTorch Version (e.g., 1.0): 1.0.0, 1.1.0, 1.2.0")
FIELD = re.compile(r"^\s*[-*]?\s*\**\s*[-*]?\s*(TensorFlow|PyTorch|Python) version(?:\s*\([^)]*\))?\s*\**\s*:?\s*\**\s*(.*)$",
                   re.I)
HEADING = re.compile(r"^\s*#+\s*(TensorFlow|PyTorch|Python) version\s*$", re.I)
TEMPLATE = {"tensorflow": ("tensorflow", "TensorFlow's issue template"), "pytorch": ("torch", "PyTorch's issue template")}
# numpy's template: "### Numpy/Python version information:" then `print(numpy.__version__, sys.version)`'s line
NUMPY_HEADING = re.compile(r"^\s*#*\s*\**numpy/python version information\b", re.I)
INSTALL = re.compile(r"\b(?:pip3?|python3? -m pip|conda)\s+install\b(.*)$", re.I)
FROM_PYTHON = re.compile(r"^\s*FROM\s+(?:\S+/)?python:(\d\.\d{1,2}(?:\.\d+)?)", re.I)
PRINTED = re.compile(r"\b(torch|tf|tensorflow|jax|jaxlib|cupy)\.(?:version\.VERSION|__version__)\b[}\"')]*\s*"
                     r"(?:[:=]|->|is)?\s*['\"]?" + _VER + "?")
PRINTED_LINE = re.compile(r"^\s*(?:[\w ]{1,20}:\s*)?['\"]?" + _VER + r"['\"]?\s*$")  # 2.0.0, or torch: 1.12.1
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# The templates' own instructions, never the reporter's words: TensorFlow's "You can collect some of this
# information ... 1. TF 1.0: `python -c ...` 2. TF 2.0: ..." paragraph, its field hints, pip's and conda's headers.
TEMPLATE_TEXT = re.compile(r"You can (?:collect some of this information|also obtain the TensorFlow version)|"
                           r"environment capture|tag:bug_template", re.I)


@dataclass(frozen=True)
class Stated:
    package: str  # the pip name: torch, tensorflow, jax, jaxlib, cupy, keras, psutil...; "python": the interpreter
    version: str  # as stated: 2.1.0+cu121, 2.11, 0.4.23
    line: int  # 1-based in the report
    text: str  # the line, as it reads
    how: str  # which format said it
    role: str = ""  # "good" (works on it), "bad" (the bug happens on it), "" (just stated or said both)
    contradicted: int = 0  # a line that says the opposite role of this release: the run decides, said so


def _name(word: str) -> str | None:
    word = word.lower()
    return "cupy" if word.startswith("cupy") else NAMES.get(word)


def reporters_words(text: str) -> list[str]:
    """The report's lines with what is not the reporter's blanked (HTML comments, the templates' own
    instructions, paragraph by paragraph): line numbers stay those of the report."""
    text = HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.splitlines()
    start = 0
    for index in range(len(lines) + 1):
        if index == len(lines) or not lines[index].strip():
            if any(TEMPLATE_TEXT.search(line) for line in lines[start:index]):
                lines[start:index] = [""] * (index - start)
            start = index + 1
    return lines


def _values(text: str) -> list[str]:
    """A field's releases: ``v2.0.0-rc2-26-g64c3d38 2.0.0`` -> 2.0.0; ``1.1 and 1.2`` -> both; a parenthesis
    after them is prose, read as such."""
    head = issue_prose.GIT_DESCRIBE.sub(" ", text.split("(")[0])
    return re.findall(r"(?<![\w.-])" + _VER + r"(?![\w-])", head)


def _field(lines: list[str], index: int) -> tuple[str, str] | None:
    """(what, its value) for a template field on line ``index``: on the line, or on the next lines."""
    field, heading = FIELD.match(lines[index]), HEADING.match(lines[index])
    if not (field or heading):
        return None
    what = (field or heading).group(1).lower()  # type: ignore[union-attr]
    value = field.group(2) if field else ""
    if not _values(value):
        value = next((text for text in lines[index + 1:index + 4] if text.strip()), "")
        value = "" if FIELD.match(value) or HEADING.match(value) else value
    return what, value


def _installed(line: str, number: int, how: str) -> list[Stated]:
    """Every ``pkg==ver`` (or conda's ``pkg=ver``) of an install line."""
    match = INSTALL.search(line)
    if not match:
        return []
    found = re.findall(r"(?<![\w.-])([A-Za-z][\w.-]*)(?:\[[\w,]+\])?={1,2}" + _VER, match.group(1))
    return [Stated(_name(name) or name.lower(), version, number, line.strip(), how) for name, version in found]


def stated(lines: list[str], code_lines: set[int], block_lines: set[int] = frozenset(),  # type: ignore[assignment]
           default: str | None = None) -> list[Stated]:
    """Every release stated in the report's ``lines`` (as ``reporters_words`` gives them); ``code_lines``
    (0-based) hold the report's code, read for version prints and install lines only; ``block_lines``:
    every code block's lines (an environment dump, a log, a Dockerfile), never read as prose; ``default``:
    the framework its code imports, for unnamed prose."""
    found: list[Stated] = []
    for index, line in enumerate(lines):
        number, text = index + 1, line.strip()
        if text.startswith("#") and index in block_lines:  # a commented line of code: # FROM python:3.10.11
            continue
        found += _installed(line, number, "install line")
        origin = FROM_PYTHON.match(line)
        if origin:
            found.append(Stated(PYTHON, origin.group(1), number, text, "Dockerfile"))
            continue
        printed = PRINTED.search(line)
        if printed:
            package = _name(printed.group(1))
            version = printed.group(2) or next((m.group(1) for m in map(PRINTED_LINE.match, lines[index + 1:index + 3]) if m),
                                               None)
            if package and version:
                found.append(Stated(package, version, number, text, "version print"))
            continue
        if index in code_lines or INSTALL.search(line):
            continue
        found += _one_line(lines, index, default, index in block_lines)
    return _merged(found)


def _one_line(lines: list[str], index: int, default: str | None, in_block: bool) -> list[Stated]:
    """What a line outside the code states, in the first format that reads it."""
    line, number = lines[index], index + 1
    text = line.strip()
    if OTHER_FIELD.match(line):
        return []
    match = COLLECT_ENV.match(line) or JAX_INFO.match(line)
    if match:
        how = "collect_env" if match.re is COLLECT_ENV else "jax.print_environment_info()"
        package = "torch" if match.re is COLLECT_ENV else str(_name(match.group(1)) or PYTHON)
        return [Stated(package, match.groups()[-1], number, text, how)]
    dashed = DASHED.findall(line)
    if dashed:
        return [Stated(str(_name(name)), version, number, text, "JAX's issue template") for name, version in dashed]
    listed = FREEZE.match(line) or LISTED.match(line)
    if listed:
        how = ("pip freeze" if listed.re is FREEZE else
               "conda list" if "conda" in line or len(line.split()) > 2 else "pip list")
        named = _name(listed.group(1)) or listed.group(1).lower()
        return [Stated(named, listed.group(2), number, text, how)]
    if NUMPY_HEADING.match(line):
        value = next((text for text in lines[index + 1:index + 4] if text.strip()), "")
        found = re.match(r"\s*" + _VER + r"\s+(\d\.\d{1,2}(?:\.\d+)?)\b", value)
        return ([Stated("numpy", found.group(1), number, text, "numpy's issue template"),
                 Stated(PYTHON, found.group(2), number, text, "numpy's issue template")] if found else [])
    field = _field(lines, index)
    if field:
        what, value = field
        package, how = TEMPLATE.get(what, (PYTHON, "the issue template"))
        how = "collect_env" if what == "python" and text.startswith("Python version:") else how
        out = [Stated(package, version, number, text, how) for version in _values(value)]
        remark = value[value.find("("):] if "(" in value and package != PYTHON else ""
        out += [Stated(p, v, number, text, how, r)
                for p, v, r in issue_prose.releases(remark, NAMES, package)]
        return out
    if in_block:
        return []
    out = [Stated(PYTHON, v, number, text, "prose") for v in issue_prose.pythons(line)]
    return out + [Stated(p, v, number, text, "prose", r) for p, v, r in issue_prose.releases(line, NAMES, default)]


def _merged(found: list[Stated]) -> list[Stated]:
    """One entry per (package, release), the first that stated it, with the strongest role said of it; a
    minor ("2.0") where a release of it is stated too ("2.0.0") is that release. A release said both to work
    and to have the bug keeps no role and the line that contradicts it."""
    exact = {(s.package, s.version) for s in found if s.version.count(".") >= 2}
    out: dict[tuple[str, str], Stated] = {}
    for item in found:
        key = (item.package, item.version)
        if item.version.count(".") == 1:
            key = next((k for k in sorted(exact) if k[0] == item.package and k[1].startswith(item.version + ".")), key)
        first = out.get(key)
        if first is None:
            out[key] = replace(item, version=key[1])
        elif item.role and not first.role and not first.contradicted:
            out[key] = replace(first, role=item.role)
        elif item.role and first.role and item.role != first.role:
            out[key] = replace(first, role="", contradicted=item.line)
    return list(out.values())
