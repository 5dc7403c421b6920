"""Environment definitions: the shipped file loads, mistakes are named, families are derived."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import frameworks as registry
from harness.common.errors import UsageError
from harness.definitions import config


def test_shipped_environments_load_with_both_variants() -> None:
    envs = config.load_environments()
    assert [e.name for e in config.select(envs, None)] == ["tf1.8", "tf2.7", "tf-current", "torch", "jax", "cupy"]
    for env in config.select(envs, None):
        assert env.kind == "build" and set(env.variants) == {"cpu", "gpu"}
        assert (config.REPO / env.dockerfile / "Dockerfile").is_file()
    assert envs["host-python"].kind == "process" and not envs["host-python"].default
    assert envs["tf1.8"].build_args("cpu")["PIP_PACKAGES"] == "tensorflow==1.8.0"


def test_a_typo_is_named_with_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "envs.toml"
    path.write_text('[environments.x]\nfamily = ["torch"]\ndockerfil = "images/torch"\n')
    with pytest.raises(UsageError, match="unknown key 'dockerfil' \\(did you mean 'dockerfile'\\?\\)"):
        config.load_environments(path)
    with pytest.raises(UsageError, match="unknown environment 'toch' \\(did you mean 'torch'\\?\\)"):
        config.select(config.load_environments(), ["toch"])


BROKEN = """\
[environments.jax]
dockerfile = "images/jax"

[environments.jax.variants.cpu]
base = "python:3.11-slim"
packages = "jax==0.10.2"

[environments.torch]
famly = ["torch"]
dockerfile = "images/torch"
variants.cpu = { base = "x", packages = ["torch"] }
"""


def test_the_whole_file_is_checked_and_every_problem_listed_with_its_line(tmp_path: Path) -> None:
    """A missing family was a KeyError; a string of packages went to pip letter by letter."""
    path = tmp_path / "envs.toml"
    path.write_text(BROKEN)
    with pytest.raises(UsageError) as caught:
        config.load_environments(path)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{path}: 4 problems; nothing was run:"
    assert lines[1:] == [
        "  line 1: environments.jax: 'family' is missing (required)",
        "  line 6: environments.jax.variants.cpu.packages: must be a list, e.g. ['jax==0.10.2'], not the string 'jax==0.10.2'",
        "  line 8: environments.torch: 'family' is missing (required)",
        "  line 9: environments.torch: unknown key 'famly' (did you mean 'family'?)",
    ]


def test_an_environment_is_exactly_one_kind(tmp_path: Path) -> None:
    path = tmp_path / "envs.toml"
    path.write_text('[environments.x]\nfamily = ["torch"]\nimage = "a:b"\ninterpreter = "python3"\n')
    with pytest.raises(UsageError, match="exactly one of dockerfile, image, interpreter"):
        config.load_environments(path)


def test_definition_hash_follows_the_pins() -> None:
    env = config.load_environments()["torch"]
    moved = config.EnvDef(name=env.name, family=env.family, dockerfile=env.dockerfile,
                          variants={"cpu": config.VariantDef(base=env.variant("cpu").base, packages=("torch==2.12.0",))})
    assert moved.definition_hash("cpu") != env.definition_hash("cpu")
    assert env.definition_hash("cpu") == config.load_environments()["torch"].definition_hash("cpu")


@pytest.mark.parametrize(("frameworks", "families"), [
    ({"tensorflow": "1.8.0"}, ("tf1",)),
    ({"tensorflow": "2.7.4"}, ("tf2", "tf1")),
    ({"torch": "2.13.0+cpu", "jax": "0.10.2"}, ("torch", "jax")),
    ({}, ()),
])
def test_families_from_what_an_image_imports(frameworks: dict, families: tuple) -> None:
    assert registry.families_of(frameworks) == families


def test_a_file_found_valid_is_not_checked_again_and_a_broken_one_always_is(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema check imports jsonschema (0.05-0.1 s of every command's start): a text found valid
    is remembered under the cache folder, keyed by its text and the schema's; a broken one never is."""
    import tomllib

    from harness.definitions import schema

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    good = (config.data_root() / "matrix" / "environments.toml").read_text(encoding="utf-8")
    assert schema.problems(tomllib.loads(good), good) == []
    (marker,) = (tmp_path / "gpu-cleanup-matrix" / "valid-environments").iterdir()
    assert schema.problems({"environments": {"x": {}}}, good) == []  # the same text: remembered, not re-read
    broken = good.replace('family = ["torch"]', 'family = "torch"', 1)
    assert schema.problems(tomllib.loads(broken), broken) and schema.problems(tomllib.loads(broken), broken)
    assert list(marker.parent.iterdir()) == [marker]


def test_a_base_mirror_prefixes_what_a_build_starts_from_never_the_definition(monkeypatch: pytest.MonkeyPatch) -> None:
    """HARNESS_BASE_MIRROR: a registry mirror, or stand-ins a machine without a registry made under
    its own prefix; the definition (and its hash) keeps the public name."""
    monkeypatch.delenv("HARNESS_BASE_MIRROR", raising=False)  # CI sets it for its own stand-ins
    torch = config.load_environments()["torch"]
    plain, digest = torch.build_args("cpu")["BASE"], torch.definition_hash("cpu")
    monkeypatch.setenv("HARNESS_BASE_MIRROR", "mirror.example.com/hub/")
    assert torch.build_args("cpu")["BASE"] == f"mirror.example.com/hub/{plain}" == config.mirrored(plain)
    assert torch.variant("cpu").base == plain and torch.definition_hash("cpu") == digest
    monkeypatch.setenv("HARNESS_BASE_MIRROR", "")
    assert config.mirrored(plain) == plain and config.mirrored("") == ""


def test_stand_in_bases_are_made_under_the_projects_prefix_never_a_public_name() -> None:
    script = (config.REPO / ".ci" / "make-bases.sh").read_text()
    made = re.findall(r'^\s*(?:make_base|docker tag \S+)\s+("?\S+"?)', script, re.M)
    made += re.findall(r"docker build -q -t (\"?\S+\"?)", script)
    assert made and all(name.strip('"').startswith(("$STANDIN/", "harness-ci/")) for name in made), made
