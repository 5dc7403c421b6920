"""Naming what holds the memory (agent/holders.py): the walk from the script's names to its arrays,
on a stand-in array type with torch's shape of API (this machine has no torch; the H100 run in
matrix/reference shows the real one), and the words the judge gives each holder."""
from __future__ import annotations

import gc
import sys
import types
from pathlib import Path

import pytest

from harness.judgement import holders as words

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harness" / "agent"))
import holders  # noqa: E402  (agent code: imported from its folder, as inside an environment)

MIB = 1 << 20


class _Storage:
    def __init__(self, size: int) -> None:
        self.size = size

    def data_ptr(self) -> int:
        return id(self)

    def nbytes(self) -> int:
        return self.size


class Tensor:
    """The parts of torch.Tensor the walk reads."""

    is_cuda, is_meta = True, False
    device = types.SimpleNamespace(type="cuda", index=0)
    dtype, shape = "torch.float32", (256, 1024)

    def __init__(self, mib: int = 1, graph: bool = False, storage: _Storage | None = None) -> None:
        self._storage = storage or _Storage(mib * MIB)
        self.grad_fn = object() if graph else None

    def untyped_storage(self) -> _Storage:
        return self._storage


class Adam:
    def __init__(self, params: list[Tensor]) -> None:
        self.param_groups = [{"params": params}]
        self.state = {p: {"exp_avg": Tensor(4), "exp_avg_sq": Tensor(4)} for p in params}


class Linear:
    def __init__(self) -> None:
        self.__dict__["_parameters"] = {"weight": Tensor(4), "bias": Tensor(1)}
        self.__dict__["_buffers"], self.__dict__["_modules"] = {}, {}


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    torch = types.ModuleType("torch")
    torch.Tensor = Tensor  # type: ignore[attr-defined]
    torch.cuda = types.SimpleNamespace(is_initialized=lambda: True)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def _train(held: list[Tensor]) -> None:
    activations = Tensor(16)  # noqa: F841  (kept by the frame the traceback holds)
    held.append(activations)
    raise RuntimeError("out of memory")


def test_each_array_is_named_by_the_name_that_reaches_it(fake_torch: types.ModuleType) -> None:
    main = types.ModuleType("__main__")
    model = Linear()
    shared = _Storage(8 * MIB)
    main.losses = [Tensor(2, graph=True) for _ in range(5)]  # a list collecting losses with their graphs
    main.opt = Adam(list(model._parameters.values()))  # the optimizer outlives `del model`
    main.views = [Tensor(storage=shared), Tensor(storage=shared)]  # one storage seen twice: counted once
    try:
        _train([])
    except RuntimeError as exc:
        main.err = exc  # the traceback keeps _train's frame and its activations
    del model
    gc.collect()  # the earlier tests' garbage (the test may collect; the agent never does)
    found = holders.find(None, main)
    by_owner = {h["owner"]: h for h in found["holders"]}
    assert by_owner["losses"]["bytes"] == 10 * MIB and by_owner["losses"]["graph"] == 5
    assert by_owner["losses"]["kind"] == "list of 5" and by_owner["losses"]["shapes"] == "float32 [256, 1024] x5"
    assert by_owner["opt"]["bytes"] == 21 * MIB  # its state (16 MiB) and the parameters it keeps (5 MiB)
    assert by_owner["views"]["bytes"] == 8 * MIB and by_owner["views"]["arrays"] == 2
    assert by_owner["err"]["bytes"] == 16 * MIB and "__traceback__ (frame of _train())" in by_owner["err"]["paths"][0]
    assert [h["owner"] for h in found["holders"]][:2] == ["opt", "err"]  # the largest first
    assert found["unaccounted"] == 0 and not found.get("budget_hit")


def test_an_array_no_name_reaches_is_unaccounted_and_nothing_is_kept(fake_torch: types.ModuleType) -> None:
    main = types.ModuleType("__main__")
    orphan = [Tensor(3)]
    orphan.append(orphan)  # a cycle no name reaches: garbage the collector has not taken yet
    del orphan
    found = holders.find(None, main)
    assert found["holders"] == [] and found["unaccounted"] >= 3 * MIB


def test_the_budget_is_said_when_hit(fake_torch: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    main = types.ModuleType("__main__")
    main.x = Tensor(2)
    monkeypatch.setattr(holders, "BUDGET_S", -1.0)
    assert holders.find(None, main)["budget_hit"] is True


def test_the_words_name_the_holder_and_the_known_fix() -> None:
    said = words.sentences({"holders": [
        {"owner": "losses", "kind": "list of 100", "bytes": 400 * MIB, "arrays": 100, "graph": 100,
         "paths": ["losses[0]"], "shapes": "float32 [] x100"},
        {"owner": "opt", "kind": "Adam", "bytes": 64 * MIB, "arrays": 4, "graph": 0, "paths": ["opt.state[Tensor]['exp_avg']"],
         "shapes": "float32 [1024, 1024] x4"},
        {"owner": "err", "kind": "RuntimeError", "bytes": 16 * MIB, "arrays": 1, "graph": 0,
         "paths": ["err.__traceback__ (frame of train()).activations"], "shapes": "float32 [256, 1024]"}],
        "total": 500 * MIB, "unaccounted": 20 * MIB})
    assert said[0].startswith("`losses` (list of 100) keeps 100 tensors (400.00 MiB) with their autograd graphs")
    assert "append `loss.item()` or `loss.detach()`" in said[0]
    assert said[1].startswith("`opt` (Adam) holds its state and the parameters it was given, after the model is gone: "
                              "4 tensors (64.00 MiB)") and "`del opt` too" in said[1]
    assert "the traceback in `err` keeps the frame of `train()`" in said[2]
    assert said[-1] == "20.00 MiB of 500.00 MiB no name of the script reaches (a framework cache, a closure, or garbage " \
                       "the collector has not taken yet)."


class _Node:
    """An autograd node: what it saved for backward (a new tensor object at each access, over a storage
    no Python tensor holds, as torch's SavedVariable), and the nodes before it."""

    def __init__(self, saved: _Storage | None, before: tuple = ()) -> None:
        self._storage = saved
        self.next_functions = tuple((node, 0) for node in before)

    @property
    def _saved_self(self) -> Tensor:
        if self._storage is None:
            raise RuntimeError("Trying to backward through the graph a second time")  # freed by backward()
        return Tensor(storage=self._storage)


def test_a_kept_graph_adds_what_it_saved_for_backward(fake_torch: types.ModuleType) -> None:
    """`total += loss` without backward: the loss keeps its graph, whose nodes saved the activations;
    no Python tensor holds them, so they count as the loss's (each storage once)."""
    gc.collect()  # the earlier tests' garbage (the test may collect; the agent never does)
    main = types.ModuleType("__main__")
    shared = _Storage(32 * MIB)
    main.total = Tensor(graph=True, storage=_Storage(0))
    main.total.grad_fn = _Node(_Storage(8 * MIB), before=(_Node(shared), _Node(shared), _Node(None)))
    wrapper = [Tensor(storage=shared)]  # torch keeps a saved tensor's Python object alive: no name reaches it
    wrapper.append(wrapper)
    del wrapper
    found = holders.find(None, main)
    (held,) = found["holders"]
    assert held["owner"] == "total" and held["graph_bytes"] == 40 * MIB and held["bytes"] == 40 * MIB
    assert found["unaccounted"] == 0 and found["total"] == 40 * MIB  # moved to the graph, counted once
    assert "40.00 MiB of it saved by their graphs for backward" in words.sentence(held)


FAKE_TORCH = '''__version__ = "0.0"
import types as _t
class _Storage:
    def __init__(self, n): self.n = n
    def data_ptr(self): return id(self)
    def nbytes(self): return self.n
class Tensor:
    is_cuda, is_meta, grad_fn = True, False, None
    device = _t.SimpleNamespace(type="cuda", index=0)
    dtype, shape = "torch.float32", (256, 1024)
    def __init__(self, mib): self._s = _Storage(mib << 20)
    def untyped_storage(self): return self._s
def empty(mib): return Tensor(mib)
class _Cuda:
    def is_initialized(self): return True
    def device_count(self): return 1
    def memory_allocated(self, d=None): return 12 << 20
    def memory_reserved(self, d=None): return 14 << 20
    def memory_stats(self, d=None): return {}
cuda = _Cuda()
'''


def test_holders_travel_from_the_script_to_repro_md(tmp_path: Path) -> None:
    """A real repro run through the process backend, torch stood in by a module with its API's shape:
    the checkpoint after `del x` names `keep`; a dead weak proxy in the script's globals (what
    torch.compile leaves about) is never touched, and the script's own output is unchanged."""
    from harness.judgement import verdicts
    from harness.measurement.backends.process import ProcessBackend
    from harness.measurement.nvml import Nvml
    from harness.measurement.runner import CellOptions, run_cell
    from harness.reporting import repro_md
    from harness.running import repro

    (tmp_path / "site" / "torch").mkdir(parents=True)
    (tmp_path / "site" / "torch" / "__init__.py").write_text(FAKE_TORCH)
    script = tmp_path / "fh.py"
    script.write_text("import weakref\nimport torch\nclass O:\n    pass\no = O()\ngone = weakref.proxy(o)\ndel o\n"
                      "keep = [torch.empty(3) for _ in range(4)]\nx = torch.empty(2)\ndel x\nprint('done', len(keep))\n")
    item = repro.script_scenario(script)
    options = CellOptions(run_id="r", run_dir=tmp_path / "r", env_name="local", env_facts={}, params={},
                          setenv={"PYTHONPATH": str(tmp_path / "site")})
    record = run_cell(ProcessBackend(python=sys.executable), item, options, Nvml(False, "not needed"))
    assert record["status"] == "ok", record["stderr_tail"]
    assert "done 4" in record["stderr_tail"]
    at = {cp["label"]: cp.get("holders") for cp in record["checkpoints"]}
    assert at["fh.py:10: del x"]["holders"][0]["owner"] == "keep"
    record["verdicts"] = verdicts.judge(record)
    text = repro_md.markdown([record], script)
    assert "What holds the memory at `fh.py:10: del x`:" in text
    assert "- `keep` (list of 4) keeps 4 tensors (12.00 MiB) [float32 [256, 1024] x4]" in text


def test_cupy_and_jax_arrays_are_found_and_said_as_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    """CuPy's arrays by the allocation they view (two views of one allocation counted once); JAX's from
    its own list of live arrays, no scan needed."""
    class Mem:
        def __init__(self, mib: int) -> None:
            self.size, self.ptr = mib * MIB, id(self)

    class ndarray:  # noqa: N801  (CuPy's name)
        device = types.SimpleNamespace(id=0)
        dtype, shape = "float32", (1024,)

        def __init__(self, mem: Mem) -> None:
            self.data = types.SimpleNamespace(mem=mem)

    class Array:
        dtype, shape, nbytes = "float32", (4096, 4096), 64 * MIB

        def is_deleted(self) -> bool:
            return False

    cupy = types.ModuleType("cupy")
    cupy.ndarray = ndarray  # type: ignore[attr-defined]
    kept: list[Array] = []
    jax = types.ModuleType("jax")
    jax.live_arrays = lambda: list(kept)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "jax", jax)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    gc.collect()
    main = types.ModuleType("__main__")
    shared = Mem(32)
    main.pool = [ndarray(shared), ndarray(shared), ndarray(Mem(16))]
    kept.append(Array())
    main.cache = {"w": kept[0]}
    found = holders.find(None, main)
    by_owner = {h["owner"]: h for h in found["holders"]}
    assert by_owner["pool"]["bytes"] == 48 * MIB and by_owner["cache"]["bytes"] == 64 * MIB
    assert found["framework"] == "cupy, jax"
    said = words.sentences(found)
    assert said[0] == "`cache` (dict of 1) keeps 1 array (64.00 MiB) [float32 [4096, 4096]]: `del cache` (or " \
                      "`cache = None`) to free it."


def test_reading_a_running_functions_locals_keeps_none_of_them_alive() -> None:
    """Before Python 3.13, reading a frame's f_locals leaves a copy on the frame: a local the function
    then deletes would stay alive (its memory measured as held, where bare it is freed)."""
    import weakref

    class Big:
        pass

    main = types.ModuleType("__main__")
    main.__file__ = __file__

    def train() -> bool:
        model = Big()
        gone = weakref.ref(model)
        holders._roots(sys._getframe(), main)  # what a checkpoint in this function does
        del model
        return gone() is None  # while the function still runs: freed, as it is bare

    assert train()


def test_a_few_bytes_no_name_reaches_are_not_said() -> None:
    """torch.compile's script left 80 B of bookkeeping no name reaches: nothing worth a line."""
    assert words.sentences({"holders": [], "total": 80, "unaccounted": 80, "framework": "torch"}) == []


def _make_step() -> object:
    weights = Tensor(12)

    def step() -> Tensor:
        return weights

    return step


def test_a_closure_of_the_scripts_own_function_is_named_and_a_libraries_is_not(fake_torch: types.ModuleType) -> None:
    """`step` closes over 12 MiB of weights: named, with the fix; a function defined outside the script
    (a library's) keeps its closure to itself: what it holds is unaccounted, never blamed on a name."""
    import functools

    main = types.ModuleType("__main__")
    main.__file__ = __file__
    main.step = _make_step()
    main.wrapped = functools.wraps(main.step)(lambda: None)  # reached through __wrapped__, as jax.jit's is
    namespace: dict[str, object] = {"Tensor": Tensor}
    exec(compile("def lib():\n    kept = Tensor(5)\n    return lambda: kept\n", "library.py", "exec"), namespace)
    main.callback = namespace["lib"]()  # type: ignore[operator]
    gc.collect()
    found = holders.find(None, main)
    by_owner = {h["owner"]: h for h in found["holders"]}
    assert by_owner["step"]["bytes"] == 12 * MIB and by_owner["step"]["paths"] == ["step.<closure weights>"]
    assert "callback" not in by_owner and found["unaccounted"] >= 5 * MIB
    said = words.sentence(by_owner["step"])
    assert said.startswith("`step` keeps `weights` in its closure: 1 tensor (12.00 MiB)") and "`del step`" in said


SCRIPT = """import torch

losses = []
def train():
    for step in range(3):
        loss = model(x)
        losses.append(loss)
opt = torch.optim.Adam(params)  # the optimizer
"""


def test_a_holder_is_said_with_the_script_line_that_made_it(fake_torch: types.ModuleType, tmp_path: Path) -> None:
    """The line that first binds the holder's name, read from the script's own source (nothing of it
    runs): a global at module level, a local in its function; a name the script never binds, none."""
    import made_at

    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    main.losses = [Tensor(2, graph=True) for _ in range(3)]
    gc.collect()
    found = holders.find(None, main)
    (losses,) = [h for h in found["holders"] if h["owner"] == "losses"]
    assert losses["made_at"] == [3, "losses = []"]
    assert made_at.made_at(main, "opt") == [8, "opt = torch.optim.Adam(params)  # the optimizer"]
    assert made_at.made_at(main, "train() local loss") == [6, "loss = model(x)"]
    assert made_at.made_at(main, "nothing") is None
    assert words.sentence(losses).endswith("Made at line 3: `losses = []`.")


def test_a_jitted_functions_own_array_over_a_globals_buffer_is_the_globals_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on an H100 (tools/lab/jax_jit_constant.py, JAX 0.11.2): after `lookup = jax.jit(...)` reads the
    global `table`, jax.live_arrays() lists two 32 MiB arrays and the device holds 32 MiB: the jit keeps
    its own Array over `table`'s buffer. It listed first, `table` named second: 32 MiB, once, to `table`,
    nothing unaccounted."""
    class Array:
        dtype, shape, nbytes = "float32", (2048, 4096), 32 * MIB

        def is_deleted(self) -> bool:
            return False

        def unsafe_buffer_pointer(self) -> int:
            return 0x7F0000000000  # one buffer, both arrays

    jax = types.ModuleType("jax")
    captured, table = Array(), Array()
    jax.live_arrays = lambda: [captured, table]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax", jax)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    main = types.ModuleType("__main__")
    main.table = table  # type: ignore[attr-defined]
    found = holders.find(None, main)
    (held,) = found["holders"]
    assert held["owner"] == "table" and held["bytes"] == 32 * MIB
    assert found["unaccounted"] == 0 and found["total"] == 32 * MIB


def test_an_open_tf1_session_is_a_holder_of_gpu_memory_where_it_has_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """TF reports no count in graph mode; an open session holds its graph's variables where it placed
    them: on the GPU when it has one (said as GPU memory), else host memory."""
    class Shape:
        def num_elements(self) -> int:
            return 4096 * 4096

    var = types.SimpleNamespace(shape=Shape(), dtype=types.SimpleNamespace(size=4))

    class Session:
        _closed = False
        graph = types.SimpleNamespace(get_collection=lambda name: [var] if name == "variables" else [])
        devices = ["CPU"]

        def list_devices(self) -> list[types.SimpleNamespace]:
            return [types.SimpleNamespace(device_type=d) for d in self.devices]

    tf = types.ModuleType("tensorflow")
    tf.Tensor, tf.Variable, tf.Session = type("Tensor", (), {}), type("Variable", (), {}), Session  # type: ignore[attr-defined]
    tf.executing_eagerly = lambda: False  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tensorflow", tf)
    main = types.ModuleType("__main__")
    main.sess = Session()  # type: ignore[attr-defined]
    found = holders.find(sys._getframe(), main, [])
    assert found is not None and found["device"] == "cpu" and found["holders"][0]["owner"] == "sess"
    assert found["holders"][0]["bytes"] == 64 * MIB and found["holders"][0]["kind"] == "Session"
    main.sess.devices = ["CPU", "GPU"]  # type: ignore[attr-defined]
    assert holders.find(sys._getframe(), main, [])["device"] == "gpu"
    assert "is still open and keeps its graph's variables: 64.00 MiB" in words.sentence(found["holders"][0])


def test_a_framework_import_is_measured_but_never_searched() -> None:
    """The search runs at cleanup lines only: after `import torch`, with no GPU count yet, a search for
    host arrays would walk every object the import made (up to its 0.5 s budget) for nothing."""
    import agent
    import instrument

    calls: list[tuple[str, bool]] = []

    def checkpoint(label: str, frame: object = None, **_: object) -> None:
        calls.append((label, frame is not None))

    code, _, sites = instrument.instrument_sites("import json\nx = [1]\ndel x\n", "s.py", ("json",))
    exec(code, {instrument.CHECKPOINT_NAME: agent.sampled.numbered(checkpoint, sites)})
    assert calls == [("s.py:1: import json", False), ("s.py:3: del x", True)]


def test_what_an_ipython_shell_keeps_is_named_as_a_notebook_user_knows_it(fake_torch: types.ModuleType,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel's namespace: the module is reached by `_`, `_2` and `Out[2]` alike; it is said as
    `Out[2]`, and the last error's traceback as what IPython keeps (agent/notebook.py's roots)."""
    import notebook  # noqa: E402  (agent code, beside holders)

    main = types.ModuleType("__main__")
    model = Linear()
    main.__dict__.update(_=model, _2=model, __=model, Out={2: model}, _oh=None, In=["", "m.to('cuda')"])
    try:
        _train([])
    except RuntimeError as exc:
        monkeypatch.setattr(sys, "last_value", exc, raising=False)
    gc.collect()  # the earlier tests' garbage
    found = holders.find(None, main, adjust=notebook.history_roots)
    owners = {h["owner"]: h for h in found["holders"]}
    assert set(owners) == {"Out", "sys.last_value"} and owners["Out"]["paths"][0].startswith("Out[2]"), owners
    said = words.sentences(found)[::-1]  # the traceback's 16 MiB first, the largest
    assert said[0].startswith("IPython's output history keeps what the last line of cell 2 showed (`Out[2]`, also `_2`): "
                              "2 tensors (5.00 MiB)") and "`%xdel NAME` instead of `del NAME`" in said[0], said
    assert "`%reset -f out` leaves `_2` behind" in said[0]
    assert said[1].startswith("the traceback IPython keeps of the last error (`sys.last_traceback`) keeps the frame of "
                              "`_train()` and its locals: 1 tensor (16.00 MiB)") and "(`1/0`)" in said[1], said
