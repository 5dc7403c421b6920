"""What holds the memory, named on a CPU host in the real frameworks' images: TensorFlow's tensors,
variables and Keras models (TF 2.x), a TF1 session's variables (TF 1.8, Python 2.7), torch's CPU
tensors behind an optimizer and a list of losses. Host memory, said as such; the scripts' own output
is unchanged; what the search reads, it keeps no reference to."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import ROOT

sys.path.insert(0, str(ROOT / "tests" / "fidelity"))
import compare  # noqa: E402

FIDELITY = ROOT / "tests" / "fidelity" / "gpu"
SNIPPETS = ROOT / "tests" / "repro"  # torch_cpu_holders.py: test_oldest_releases runs it on torch 1.0.1 too


def _repro(script: Path, env: str, results: Path) -> tuple[str, str]:
    """repro.md, and the script's own output (its log)."""
    done = subprocess.run([sys.executable, "-m", "harness", "repro", str(script), "--env", env, "--backend", "docker",
                           "--variant", "cpu", "--results", str(results)], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800, env=dict(os.environ, NO_COLOR="1", COLUMNS="200"))
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    log = run_dir / "logs" / env / f"repro__{script.stem}.log"
    return (run_dir / "repro.md").read_text(), log.read_text(errors="replace")


def test_tensorflow_tensors_variables_and_keras_models_are_named_in_host_memory(cpu_image: Any, tmp_path: Path) -> None:
    tag = cpu_image("tf-current")
    text, log = _repro(FIDELITY / "holders_tf.py", "tf-current", tmp_path)
    assert "What holds the host memory at `holders_tf.py:17: del x`:" in text
    assert re.search(r"- `cache` \(dict of 1\) keeps 1 tensor \(64\.00 MiB\) \[float32 \[4096, 4096\]\]", text), text
    assert re.search(r"- `y` \(EagerTensor\) keeps 1 tensor \(64\.00 MiB\)", text), text
    assert re.search(r"- `models` \(list of 3\) gains one per iteration at line 11 \(`models.append\(model\)`\): \d+ tensors "
                     r"\(48\.26 MiB\), 16\.09 MiB each", text), text  # its own print: 48.26
    line = "FIDELITY done 3 models, 48.26 MiB of weights, table 64.00 MiB, y 64.00 MiB"
    code, bare, _ = compare.run_bare(FIDELITY / "holders_tf.py", None, tag, 600)  # as a user runs it in the image
    assert code == 0 and compare.marked(bare) == [line] == compare.marked(log), (bare[-2000:], log[-2000:])


def test_a_tf1_sessions_variables_are_named_on_python_27(cpu_image: Any, tmp_path: Path) -> None:
    cpu_image("tf1.8")
    text, _ = _repro(FIDELITY / "holders_tf1_session.py", "tf1.8", tmp_path)
    assert "Python 2.7" in text
    assert ("- `sess` (Session) is still open and keeps its graph's variables: 64.00 MiB; `sess.close()`" in text), text


def _repro_snippet(snippet: str, name: str, tmp_path: Path) -> tuple[str, str]:
    """A script of tests/repro, copied under ``name``, through repro in the torch image."""
    script = tmp_path / name
    script.write_text((SNIPPETS / snippet).read_text())
    (tmp_path / "results").mkdir()
    return _repro(script, "torch", tmp_path / "results")


def test_torch_cpu_tensors_behind_an_optimizer_and_a_list_of_losses(cpu_image: Any, tmp_path: Path) -> None:
    cpu_image("torch")
    text, log = _repro_snippet("torch_cpu_holders.py", "train_cpu.py", tmp_path)
    assert "What holds the host memory at `train_cpu.py:10: del model, loss`:" in text, text
    assert re.search(r"- `opt` \(Adam\) holds its state and the parameters it was given, after the model is gone: \d+ tensors "
                     r"\(64\.03 MiB\)", text), text  # weights, Adam's two moments and the weights' .grad
    assert re.search(r"- `losses` \(list of 4\) gains a tensor per iteration with its autograd graph at line 9 \(`losses.append"
                     r"\(model\(torch.randn\(256, 2048\)\).sum\(\)\)`\): 4 tensors \([\d.]+ MiB, [\d.]+ MiB of it saved by their "
                     r"graphs", text), text
    assert "done 4 16 MiB of parameters" in log


def test_a_loop_leak_is_named_at_the_end_with_its_fix(cpu_image: Any, tmp_path: Path) -> None:
    """No cleanup line: the search at `end` names the sum that keeps every iteration's graph (fix: `.item()`)
    and the list of numpy arrays the loop grows, which the loop's readings also show growing; the script's own
    output is the output of the same script run bare in the image."""
    tag = cpu_image("torch")
    text, log = _repro_snippet("loop_holders_cpu.py", "loop.py", tmp_path)
    assert "What holds the host memory at `end`:" in text, text
    assert re.search(r"- `total_loss` \(Tensor\) adds each iteration's `loss` with its autograd graph at line 12 "
                     r"\(`total_loss \+= loss`\): 1 tensor \([\d.]+ MiB, [\d.]+ MiB of it saved by their graphs for "
                     r"backward\) \[float32 \[\]\], every iteration's graph kept; add `loss.item\(\)` \(a float\)", text), text
    assert ("- `outputs` (list of 30) gains one per iteration at line 13 (`outputs.append(np.ones((1024, 1024)))`): 30 "
            "arrays (240.00 MiB), 8.00 MiB each [float64 [1024, 1024] x30]; `outputs.clear()` once they are used.") in text, text
    assert "  - what grows with it: `outputs` gains 1 per iteration (29 when #30 began)" in text, text
    line = "FIDELITY loop done 30 True"
    code, bare, _ = compare.run_bare(SNIPPETS / "loop_holders_cpu.py", None, tag, 600)  # the same script, bare
    assert code == 0 and compare.marked(bare) == [line] == compare.marked(log), (bare[-2000:], log[-2000:])


def test_a_cycle_through_autograd_is_named_with_what_closes_it_until_gc_frees_it(cpu_image: Any, tmp_path: Path) -> None:
    """A Function that keeps its output on ctx: after `del y` no name reaches y, a cycle through its own graph does;
    today's gc sees every link, so the search says so and `gc.collect()` frees it (torch 1.0's cannot:
    test_oldest_releases)."""
    import json

    cpu_image("torch")
    _, log = _repro_snippet("torch_cycle_ctx.py", "cycle.py", tmp_path)
    (run_dir,) = [p for p in (tmp_path / "results").iterdir() if p.is_dir()]
    record = json.loads((run_dir / "torch" / "repro__cycle.json").read_text())
    found = {cp["label"]: (cp.get("holders") or {}).get("holders") or [] for cp in record["checkpoints"]}
    (kept,) = [h for h in found["cycle.py:20: del y"] if h.get("cycle")]
    assert (kept["cycle"], kept["bytes"], kept["cycle_at"][0]) == ("collectable", 32 << 20, 10), kept
    assert kept["owner"] == "KeepBackward (the autograd node of `Keep`) keeps it as `ctx.out`", kept
    assert not any(h.get("cycle") for h in found["cycle.py:21: gc.collect()"])
    assert "done (2048, 4096)" in log


def test_a_jax_loop_that_keeps_its_outputs_is_named_at_the_end(cpu_image: Any, tmp_path: Path) -> None:
    """JAX arrays appended in a loop, no cleanup line: the list is named at `end` with the line that grows it and the
    loop's readings say it is what grows; the last iteration's `y`, also in the list, counts once."""
    cpu_image("jax")
    script = tmp_path / "jloop.py"
    script.write_text((SNIPPETS / "jax_loop_holders.py").read_text())
    (tmp_path / "results").mkdir()
    text, log = _repro(script, "jax", tmp_path / "results")
    assert ("- `outputs` (list of 30) gains one per iteration at line 6 (`outputs.append(y)`): 29 arrays (116.00 MiB), "
            "4.00 MiB each [float32 [1024, 1024] x29]; `outputs.clear()` once they are used.") in text, text
    assert "  - what grows with it: `outputs` gains 1 per iteration (29 when #30 began)" in text, text
    assert "FIDELITY jax loop done 30" in log


def test_an_object_whose_size_cannot_be_read_is_skipped_and_counted(cpu_image: Any, tmp_path: Path) -> None:
    """An array type whose nbytes raises (as a proxy or a broken buffer would): the search goes on, names what it can
    size and says how many it could not; the script's output is its own."""
    cpu_image("torch")
    text, log = _repro_snippet("unreadable_holder.py", "odd.py", tmp_path)
    assert "- `plain` (ndarray) keeps 1 array (32.00 MiB) [float64 [1024, 1024, 4]]" in text, text
    assert ("- 1 object whose size could not be read (a proxy, a buffer that raises) was skipped: what it holds is in no "
            "figure above.") in text, text
    assert "FIDELITY unreadable done (1024, 1024, 4) (1024, 1024, 8)" in log


STRICT = '''import warnings
warnings.simplefilter("error")  # a script that turns every warning into an error
import gc
import torch
import torch.distributed as dist  # its module keeps `reduce_op`, whose attribute access warns (FutureWarning)

kept = [torch.ones(16 << 20) for _ in range(2)]
x = torch.ones(32 << 20)
del x
gc.collect()
print("FIDELITY strict: done", len(kept), dist.is_available())
'''


def test_the_search_raises_no_warning_into_a_script_that_makes_them_errors(cpu_image: Any, tmp_path: Path) -> None:
    """The search reads the collector's objects by their types alone: `isinstance` would ask
    torch.distributed's reduce_op for its __class__, which warns (an error in this script)."""
    tag = cpu_image("torch")
    folder = tmp_path / "script"
    folder.mkdir()
    folder.chmod(0o755)  # the bare run mounts it for the container's non-root user (pytest's tmp_path is 0700)
    script = folder / "strict.py"
    script.write_text(STRICT)
    script.chmod(0o644)
    (tmp_path / "results").mkdir()
    text, log = _repro(script, "torch", tmp_path / "results")
    assert "What holds the host memory at `strict.py:10: gc.collect()`:" in text, text
    assert "- `kept` (list of 2) keeps 2 tensors (128.00 MiB)" in text and "could not be found" not in text, text
    assert "Warning" not in log, log[-2000:]
    code, bare, _ = compare.run_bare(script, None, tag, 600)
    assert code == 0 and compare.marked(bare) == compare.marked(log) == ["FIDELITY strict: done 2 True"], (bare, log)
