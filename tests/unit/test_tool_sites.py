"""A folder installed for another Python is checked against what its distributions say (their METADATA, as
IPython 8.18.1 and traitlets 5.16.1 ship it): a mirror that does not list Requires-Python let pip put traitlets
5.16.1, which Python 3.9 cannot import, beside IPython for 3.9, and pip judged IPython's
`typing-extensions ; python_version < "3.10"` by its own interpreter."""
from __future__ import annotations

from pathlib import Path

from harness.environments import tool_sites

IPYTHON = """Metadata-Version: 2.1
Name: ipython
Version: 8.18.1
Requires-Python: >=3.9
Requires-Dist: decorator
Requires-Dist: traitlets >=5
Requires-Dist: typing-extensions ; python_version < "3.10"
Requires-Dist: exceptiongroup ; python_version < "3.11"
Requires-Dist: pexpect >4.3 ; sys_platform != "win32"
Requires-Dist: colorama ; sys_platform == "win32"
Requires-Dist: black ; extra == 'all'
"""
TRAITLETS = """Metadata-Version: 2.1
Name: traitlets
Version: 5.16.1
Requires-Python: >=3.10
"""


def _site(tmp_path: Path, **dists: str) -> Path:
    for name, text in dists.items():
        (tmp_path / f"{name}.dist-info").mkdir()
        (tmp_path / f"{name}.dist-info" / "METADATA").write_text(text)
    return tmp_path


def test_a_release_its_python_cannot_run_and_a_dependency_its_marker_wants_are_asked_for(tmp_path: Path) -> None:
    site = _site(tmp_path, ipython=IPYTHON, traitlets=TRAITLETS, decorator="Name: decorator\nVersion: 5.1.1\n",
                 pexpect="Name: pexpect\nVersion: 4.9.0\n")
    assert tool_sites._unfit(site, "3.9") == ["exceptiongroup", "traitlets!=5.16.1", "typing-extensions"]
    assert tool_sites._unfit(site, "3.12") == []
