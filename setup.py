"""Package data from outside the package. The environment definitions, the claims, the GPU history and the
Dockerfiles live at the top of the checkout (matrix/, images/), where users read and edit them;
a wheel carries a copy under harness/resources/, which the installed tool reads
(harness/definitions/config.py: data_root). Everything else is in pyproject.toml."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
RESOURCES = {"matrix/environments.toml": "matrix/environments.toml", "matrix/claims.toml": "matrix/claims.toml",
             "matrix/upstream.toml": "matrix/upstream.toml", "matrix/history.toml": "matrix/history.toml"}


class BuildPyWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout itself
        target = Path(self.build_lib) / "harness" / "resources"
        for source, name in RESOURCES.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(HERE / source, target / name)
        shutil.copytree(HERE / "images", target / "images", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithResources})
