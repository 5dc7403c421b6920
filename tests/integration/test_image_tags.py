"""Two users of one engine, one environment name, different pins: each keeps its own image."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.environments import adhoc, images


def test_two_definitions_of_one_environment_do_not_overwrite_each_other(docker_client: Any) -> None:
    mine = adhoc.environment("six==1.16.0", "cpu", ("any",))
    theirs = replace(mine, variants={"cpu": replace(mine.variants["cpu"], packages=("six==1.15.0",))})
    built = {}
    for env in (mine, theirs):
        built[env.image_tag("cpu")] = images.build(docker_client, env, "cpu", images.BuildOptions(), lambda text: None)
    assert len(built) == 2 and len(set(built.values())) == 2
    # The one built first is still there and current: a run of it neither rebuilds nor takes the other.
    assert images.image_current(docker_client, mine, "cpu") and images.image_current(docker_client, theirs, "cpu")
    assert docker_client.images.get(mine.image_tag("cpu")).id == built[mine.image_tag("cpu")]
    assert docker_client.images.get(mine.alias_tag("cpu")).id == built[theirs.image_tag("cpu")]  # the last built
