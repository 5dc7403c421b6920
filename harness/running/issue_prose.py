"""Releases said in a report's sentences, and what the sentence says of each: works on it (good), the
bug happens on it (bad), or just stated.

Prose names a release ("TensorFlow 2.12.0", "TF 2.11-2.13", "jax==0.2.9"), or leaves the framework to the
code ("works on 2.9.2, leaks on 2.11"): an unnamed number counts only where the sentence says what happens
on it, and never where another name owns it ("leak memory in python 3.11" is the interpreter, "CUDA 11.6"
the toolkit). A release is good where the sentence says the bug is absent on it, before it ("works on",
"does not reproduce on", "problem disappears on") or after it in the same clause ("With TensorFlow 2.15.1,
however, the memory usage does not explode"); "instead of X" says nothing of X.
"""
from __future__ import annotations

import re

VER = r"v?(\d+\.\d+(?:\.\d+)?(?:(?:rc|a|b|\.dev|\.post|-rc)\d*)?(?:\+[\w.]+)?)"
# a git-describe prefix TensorFlow prints before its release: v2.0.0-rc2-26-g64c3d38 2.0.0
GIT_DESCRIBE = re.compile(r"\bv?\d+\.\d+\.\d+(?:-rc\d+)?-\d+-g[0-9a-f]{6,}\b")
_TICK = r"[`'\"]?"
_NAMES = r"(PyTorch|torch|TensorFlow|TF|JAX|jaxlib|CuPy|numpy|pandas)"
# torch==2.0.1, torch>=2.0.0 (its lower bound is the release said), torch: 2.0; never torch<2.0 or torch!=2.0
_SAYS = r"(?:==|>=|~=|=|v|:)"
_COMPARED = r"(?:[=<>~!]=|[<>=]|v|:)"  # any comparison: the number after it belongs to the name before it
NAMED = re.compile(r"\b" + _NAMES + r"\s*(?:version\s*)?" + _SAYS + r"?\s*" + _TICK + VER + _TICK
                   + r"(?:\s*(?:-|–|to|through)\s*" + _TICK + VER + _TICK + ")?", re.I)
PYTHON = re.compile(r"\b(?:python|py)\s*(?:version\s*)?(?:==|:)?\s*" + _TICK + r"(\d\.\d{1,2}(?:\.\d+)?)\b" + _TICK, re.I)
INLINE_PIN = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*?)\s*(?:==|>=|~=)\s*" + _TICK + VER + _TICK)
NUMBER = re.compile(VER + r"(?:\s*(?:-|–|to|through)\s*" + VER + ")?")
# a name just before an unnamed number owns it: python 3.11, CUDA 11.6, Ubuntu 18.04, numpy 1.24, gcc 9.4
OWNED = re.compile(r"\b(?:[A-Za-z][\w-]*)[`'\"]?\s*(?:version\s*)?" + _COMPARED + r"?\s*[`'\"]?$")
ROLE_WORDS = re.compile(r"\b(?:on|in|with|under|using|and|or|vs|but|not|of|for|from|since|after|before|to|than|"
                        r"version|release|releases|versions)[`'\"]?\s*[`'\"]?$", re.I)
_NEGATED = (r"does(?:n't| not)|do(?:n't| not)|did(?:n't| not)|is(?:n't| not)|was(?:n't| not)|can(?:not|'t)|could(?:n't| not)|"
            r"no longer|never")
GOOD = re.compile(r"\b(works?|worked|working|fine|ok|okay|no (?:leak|issue|problem)s?|good|disappears?|disappeared|"
                  r"goes away|went away|stable|stabili[sz]es|fixed|"
                  r"(?:" + _NEGATED + r")\s+(?:leak|happen|occur|reproduce|grow|explode|appear|see|have|show)\w*|"
                  r"not (?:reproducible|present|affected|on|in|with))\b", re.I)
BAD = re.compile(r"\b(leaks?|leaking|leaked|happens?|happening|fails?|failing|broken|breaks|regress\w*|reproduces?|grows?|"
                 r"growing|increas\w*|explodes?|ooms?|bad|persists?|present|since|starting|from|after)\b", re.I)
UNTRIED = re.compile(r"[^.;]{0,12}?\b(did not|didn't|have not|haven't|not|never)\s+(try|tried|test|tested|check|checked)\b",
                     re.I)
INSTEAD = re.compile(r"\binstead of\s*[`'\"]?\s*$", re.I)
CLAUSE_END = re.compile(r"[.;!?](?:\s|$)|\bbut\b|\bwhile\b|\bwhereas\b", re.I)


_UNITS = {"b": 1, "byte": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}
# the report's own figure for its growth: "190Mb per call", "~5 MB every iteration", "2.3 GB/epoch"; people write
# Mb, MB and M for megabytes alike
RATE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(bytes?|[kmg]i?b|[kmgb])\b\**\s*(?:/|per|each|every|an?)\s*"
                  r"(?:`[^`]{1,40}`\s*)?(call|iteration|iter|it|step|epoch|batch|loop|run|forward|prediction|predict|"
                  r"inference|request|image|sample)s?\b", re.I)


GROWTH = re.compile(r"\b(leak\w*|grow\w*|increas\w*|ris(?:e|es|ing)|rose|accumulat\w*|climb\w*|goes up|went up|"
                    r"steady|steadily|more)\b", re.I)


def rates(line: str) -> list[tuple[float, str, str]]:
    """(bytes, per what, the words) for each growth per call/iteration/step... the sentence gives (a sentence that
    says memory grows: "uses 2 GB per batch" is no growth)."""
    if not GROWTH.search(line):
        return []
    return [(float(m.group(1)) * _UNITS[m.group(2).lower()], m.group(3).lower(), m.group(0).strip("* "))
            for m in RATE.finditer(line)]


def role(before: str, after: str = "") -> str:
    """"good", "bad" or "" for a release between ``before`` and ``after`` in one sentence: what precedes it
    (the nearest 60 characters of its clause) decides; failing that, what follows it in its clause."""
    if INSTEAD.search(before):
        return ""
    clause = CLAUSE_END.split(before[-60:])[-1]
    for text in (clause, _clause_after(after)):
        goods = [m.span() for m in GOOD.finditer(text)]
        bads = [m.start() for m in BAD.finditer(text) if not any(a <= m.start() < b for a, b in goods)]  # "does not leak"
        if goods or bads:
            return "good" if goods and goods[-1][0] >= max(bads, default=-1) else "bad"
    return ""


def _clause_after(after: str) -> str:
    text = re.sub(r"\([^)]*\)", " ", after[:120])  # a parenthesis is its own remark: "(instead of 2.16.1)"
    return CLAUSE_END.split(text)[0]


def pythons(line: str) -> list[str]:
    """The Python releases a sentence names ("leak memory in python 3.11", "Python `3.12.2`")."""
    return [m.group(1) for m in PYTHON.finditer(line)]


def releases(line: str, names: dict[str, str], default: str | None) -> list[tuple[str, str, str]]:
    """(package, release, role) for every release the sentence states: named (``names`` maps a report's
    word to its package), pinned inline (``pkg==ver``), or unnamed where the sentence says what happens on
    it (then ``default``'s, the framework the code imports)."""
    line = GIT_DESCRIBE.sub(" ", line)
    found: list[tuple[str, str, str]] = []
    taken: list[tuple[int, int]] = [m.span() for m in PYTHON.finditer(line)]
    for match in INLINE_PIN.finditer(line):
        taken.append(match.span())
        package = names.get(match.group(1).lower(), match.group(1).lower())
        found.append((package, match.group(2), role(line[:match.start()], line[match.end():])))
    for match in NAMED.finditer(line):
        if any(a <= match.start() < b for a, b in taken):
            continue
        package = names.get(match.group(1).lower())
        if package and not UNTRIED.match(line[match.end():]):
            taken.append(match.span())
            said = role(line[:match.start()], line[match.end():])
            found += [(package, v, said) for v in match.groups()[1:] if v]
    if default is None:
        return found
    for match in NUMBER.finditer(line):
        before = line[:match.start()]
        if any(a <= match.start() < b for a, b in taken) or _owned(before):
            continue
        said = role(before, line[match.end():])
        if said:  # an unnamed number counts only where the sentence says what happens on it
            found += [(default, v, said) for v in match.groups() if v]
    return found


def _owned(before: str) -> bool:
    """Whether a word just before the number names what it is a release of (not the report's framework)."""
    tail = before[-24:]
    return bool(OWNED.search(tail)) and not ROLE_WORDS.search(tail)
