"""The CLI as a user meets it: a table, JSON on demand, one-line errors for bad input."""
from __future__ import annotations

import json
from pathlib import Path

from helpers import SCENARIOS, harness_cli


def test_run_prints_a_checkpoint_table(tmp_path: Path) -> None:
    result = harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for word in ("ready", "peak", "after_del", "released", "after exit", "tolerances"):
        assert word in result.stdout
    records = list(tmp_path.glob("*/*/alloc_free.json"))
    assert len(records) == 1 and (records[0].parent.parent / "manifest.json").is_file()


def test_run_json_is_the_record_on_stdout(tmp_path: Path) -> None:
    result = harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--json", "--param", "mib=256",
                         "--results", str(tmp_path))
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["schema_version"] == 1
    assert record["scenario"]["params"] == {"mib": 256}
    assert [cp["label"] for cp in record["checkpoints"]] == ["ready", "peak", "after_del"]
    for cp in record["checkpoints"]:
        assert set(cp["readings"]) == {"rss", "nvml_device", "nvml_process", "nvml_reserved", "rss_peak"}
        assert cp["readings"]["rss_peak"] >= cp["readings"]["rss"]  # the process's high-water mark so far


def _one_line_error(result, *words: str) -> None:
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]


def test_bad_input_is_one_line_naming_the_cause(tmp_path: Path) -> None:
    _one_line_error(harness_cli("run", str(tmp_path / "nope.py")), "scenario file not found", "nope.py")
    _one_line_error(harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--python", "python9.9"),
                    "interpreter not found", "python9.9")
    _one_line_error(harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--frobnicate"),
                    "unrecognized arguments", "--frobnicate")
    _one_line_error(harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--timeout", "-1"), "--timeout")


def test_setenv_reaches_the_cell_and_inherited_memory_variables_are_recorded(tmp_path: Path) -> None:
    result = harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--json", "--param", "mib=16",
                         "--setenv", "CUDA_CACHE_MAXSIZE=123456", "--setenv", "MY_OWN_FLAG=1", "--results", str(tmp_path),
                         env={"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "TF_CLI_CONFIG_FILE": "/root/.terraformrc"})
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["setenv"] == {"CUDA_CACHE_MAXSIZE": "123456", "MY_OWN_FLAG": "1"}
    # reported by the agent from inside the cell: what the script really saw
    assert record["env_seen"]["CUDA_CACHE_MAXSIZE"] == "123456"
    assert record["env_seen"]["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"  # from the shell, never hidden
    assert record["env_seen"]["MY_OWN_FLAG"] == "1"  # whatever --setenv names is reported back
    assert "TF_CLI_CONFIG_FILE" not in record["env_seen"]  # Terraform's, not TensorFlow's: not listed
    _one_line_error(harness_cli("run", str(SCENARIOS / "alloc_free.py"), "--setenv", "no-equals-sign"), "--setenv")
