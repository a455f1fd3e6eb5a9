"""The examples' kernels: each is a kbuild project made from one of the
skill's templates, built for this machine's torch and CUDA, packaged as a
Kernel Hub folder (`kbuild package`) and loaded from that folder with the
`kernels` package, exactly as a kernel published to the Hub would be."""

import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Dict, Iterable

REPO = Path(__file__).resolve().parents[2]
DEFAULT_WORKDIR = REPO / "examples" / ".work"


def kbuild_binary() -> str:
    """$KBUILD, else the checkout's build, else kbuild on PATH."""
    if os.environ.get("KBUILD"):
        return os.environ["KBUILD"]
    built = REPO / "_build" / "tools" / "kbuild" / "kbuild"
    if built.is_file():
        return str(built)
    found = shutil.which("kbuild")
    if not found:
        raise RuntimeError("kbuild not found: build it (README.md) or set KBUILD")
    return found


def project_name(template: str) -> str:
    return "ex-" + template.replace("_", "-")


def package_dir(workdir: Path, template: str) -> Path:
    """Where `kbuild package` writes the template's Hub folder (its default,
    dist/<name> inside the project)."""
    name = project_name(template)
    return workdir / name / "dist" / name


def _run(args, log):
    log.write("$ " + " ".join(args) + "\n")
    log.flush()
    done = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}); see {log.name}")


def prepare(templates: Iterable[str], workdir: Path = DEFAULT_WORKDIR) -> Dict[str, Path]:
    """Scaffolds, builds and packages each template once (kbuild's build is
    incremental, so a second call only checks); returns the package folders."""
    kbuild = kbuild_binary()
    workdir.mkdir(parents=True, exist_ok=True)
    folders = {}
    for template in templates:
        name = project_name(template)
        project = workdir / name
        with open(workdir / f"{name}.log", "a") as log:
            if not (project / "build.toml").is_file():
                _run([kbuild, "init", name, "--template", template, "--dir", str(project)], log)
            _run([kbuild, "-C", str(project), "build"], log)
            _run([kbuild, "-C", str(project), "package", "--force"], log)
        folders[template] = package_dir(workdir, template)
    return folders


def load(folders: Dict[str, Path]) -> Dict[str, ModuleType]:
    """Imports each package folder with kernels.get_local_kernel."""
    from kernels import get_local_kernel

    return {t: get_local_kernel(Path(f)) for t, f in folders.items()}
