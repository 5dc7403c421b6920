"""The framework releases a pasted bug report states, each with the line it came from.

Read from the formats people paste: torch's ``collect_env`` (``PyTorch version: 2.1.0+cu121``, its
``[pip3]``/``[conda]`` lines), TensorFlow's issue templates (``### TensorFlow version`` then the
value; ``- TensorFlow version (use command below): v2.11.0-rc2-17-g... 2.11.0``), JAX's
``jax.print_environment_info()`` (``jax:    0.4.23``), ``pip freeze`` / ``pip list`` / ``conda list``
lines, version prints (``print(torch.__version__)`` and the line it printed, ``>>> tf.__version__``),
and prose ("works on 2.9.2, leaks on 2.11-2.13", "with TensorFlow 2.12.0"). Prose that names no
framework is the framework the report's code imports (``default``). Nothing here reaches a network.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Names a report uses -> the framework's pip name (the registry's frameworks and their companions).
NAMES = {"torch": "torch", "pytorch": "torch", "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow",
         "tensorflow-cpu": "tensorflow", "tf-nightly": "tensorflow", "tf": "tensorflow", "jax": "jax", "jaxlib": "jaxlib",
         "cupy": "cupy", "keras": "keras", "torchvision": "torchvision"}
FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy")  # what a report is replayed on; the rest are companions
_VER = r"v?(\d+\.\d+(?:\.\d+)?(?:(?:rc|a|b|\.dev|\.post|-rc)\d*)?(?:\+[\w.]+)?)"
_NAME = r"(torch|pytorch|tensorflow(?:-gpu|-cpu)?|tf-nightly|jax|jaxlib|cupy(?:-cuda\w+)?|keras|torchvision)"
COLLECT_ENV = re.compile(r"^\s*PyTorch version:\s*" + _VER + r"\s*$")
FREEZE = re.compile(r"^\s*(?:\[(?:pip\d?|conda)\]\s+)?" + _NAME + r"(?:\[[\w,]+\])?\s*==\s*" + _VER + r"\s*$", re.I)
LISTED = re.compile(r"^\s*(?:\[(?:pip\d?|conda)\]\s+)?" + _NAME + r"\s{2,}" + _VER + r"(?:\s+\S+){0,3}\s*$", re.I)
JAX_INFO = re.compile(r"^\s*(jax|jaxlib):\s+" + _VER + r"\s*$")
TF_FIELD = re.compile(r"^\s*[-*]?\s*\**TensorFlow version[^:]*:\**\s*(.*)$", re.I)
TF_HEADING = re.compile(r"^\s*#+\s*TensorFlow version\s*$", re.I)
PRINTED = re.compile(r"\b(torch|tf|tensorflow|jax|jaxlib|cupy)\.__version__\b\)?\s*(?:[:=]|->|is)?\s*['\"]?" + _VER + "?")
BARE = re.compile(r"^\s*['\"]?" + _VER + r"['\"]?\s*$")
NAMED = re.compile(r"\b(PyTorch|torch|TensorFlow|TF|JAX|CuPy)\s*(?:version\s*)?(?:==|v|:)?\s*" + _VER +
                   r"(?:\s*(?:-|–|to|through)\s*" + _VER + ")?", re.I)
GOOD = re.compile(r"\b(works?|worked|working|fine|ok|okay|no (?:leak|issue|problem)s?|good|does(?:n't| not) (?:leak|happen)|"
                  r"not (?:on|in|with))\b[^.;]{0,20}?\b(?:on|in|with|under|using)?\s*$", re.I)
BAD = re.compile(r"\b(leaks?|leaking|happens?|fails?|failing|broken|breaks|regress\w*|reproduces?|grows?|ooms?|bad|"
                 r"since|starting|from|after)\b[^.;]{0,20}?\s*$", re.I)
UNTRIED = re.compile(r"[^.;]{0,12}?\b(did not|didn't|have not|haven't|not|never)\s+(try|tried|test|tested|check|checked)\b", re.I)
PROSE_VERSION = re.compile(_VER + r"(?:\s*(?:-|–|to|through)\s*" + _VER + ")?")


@dataclass(frozen=True)
class Stated:
    package: str  # the pip name: torch, tensorflow, jax, jaxlib, cupy, keras...
    version: str  # as stated: 2.1.0+cu121, 2.11, 0.4.23
    line: int  # 1-based in the report
    text: str  # the line, as it reads
    how: str  # which format said it
    role: str = ""  # "good" (works on it), "bad" (the bug happens on it), "" (just stated)


def _name(word: str) -> str | None:
    word = word.lower()
    return "cupy" if word.startswith("cupy") else NAMES.get(word)


def _tf_value(text: str) -> str | None:
    """``v2.11.0-rc2-17-gd5b57ca93e5 2.11.0`` -> 2.11.0; ``2.15`` -> 2.15; the last version-like word."""
    found = re.findall(r"(?<![\w.-])" + _VER + r"(?![\w-])", text)
    return found[-1] if found else None


def _role(before: str) -> str:
    if GOOD.search(before):
        return "good"
    return "bad" if BAD.search(before) else ""


def _prose(line: str, number: int, default: str | None) -> list[Stated]:
    """Releases said in a sentence: named ("TensorFlow 2.12.0", "TF 2.11-2.13") or, where the sentence
    says how the release behaves ("works on 2.9.2, leaks on 2.11"), of the report's framework."""
    found: list[Stated] = []
    named_spans = []
    for match in NAMED.finditer(line):
        package = _name(match.group(1))
        if package and not UNTRIED.match(line[match.end():]):
            named_spans.append(match.span())
            role = _role(line[:match.start()][-40:])
            found += [Stated(package, v, number, line.strip(), "prose", role) for v in match.groups()[1:] if v]
    if default is None:
        return found
    for match in PROSE_VERSION.finditer(line):
        if any(a <= match.start() < b for a, b in named_spans):
            continue
        role = _role(line[:match.start()][-40:])
        if role:  # an unnamed number counts only where the sentence says what happens on it
            found += [Stated(default, v, number, line.strip(), "prose", role) for v in match.groups() if v]
    return found


def stated(lines: list[str], code_lines: set[int], block_lines: set[int] = frozenset(),  # type: ignore[assignment]
           default: str | None = None) -> list[Stated]:
    """Every release stated in the report's ``lines``; ``code_lines`` (0-based) hold the report's code,
    read for version prints only; ``block_lines``: every code block's lines (an environment dump, a log),
    never read as prose; ``default``: the framework its code imports, for unnamed prose."""
    found: list[Stated] = []
    for index, line in enumerate(lines):
        number = index + 1
        printed = PRINTED.search(line)
        if printed:
            package = _name(printed.group(1))
            version = printed.group(2) or next((m.group(1) for m in map(BARE.match, lines[index + 1:index + 3]) if m), None)
            if package and version:
                found.append(Stated(package, version, number, line.strip(), "version print"))
            continue
        if index in code_lines:
            continue
        for pattern, how in ((COLLECT_ENV, "collect_env"), (JAX_INFO, "jax.print_environment_info()")):
            match = pattern.match(line)
            if match:
                package = "torch" if pattern is COLLECT_ENV else str(_name(match.group(1)))
                found.append(Stated(package, match.groups()[-1], number, line.strip(), how))
                break
        else:
            freeze, listed = FREEZE.match(line), LISTED.match(line)
            if freeze or listed:
                match = freeze or listed
                assert match is not None
                how = "pip freeze" if freeze else ("conda list" if "conda" in line or len(line.split()) > 2 else "pip list")
                package = _name(match.group(1))
                if package:
                    found.append(Stated(package, match.group(2), number, line.strip(), how))
                continue
            field, heading = TF_FIELD.match(line), TF_HEADING.match(line)
            if field or heading:
                value = field.group(1) if field else ""
                following = (text for text in lines[index + 1:index + 4] if text.strip())
                value = value if _tf_value(value) else next(following, "")
                version = _tf_value(value)
                if version:
                    found.append(Stated("tensorflow", version, number, line.strip(), "TensorFlow's issue template"))
                continue
            if index not in block_lines:
                found += _prose(line, number, default)
    return _merged(found)


def _merged(found: list[Stated]) -> list[Stated]:
    """One entry per (package, release), the first that stated it, with the strongest role said of it."""
    out: dict[tuple[str, str], Stated] = {}
    for item in found:
        key = (item.package, item.version)
        if key not in out:
            out[key] = item
        elif item.role and not out[key].role:
            out[key] = Stated(item.package, item.version, out[key].line, out[key].text, out[key].how, item.role)
    return list(out.values())
