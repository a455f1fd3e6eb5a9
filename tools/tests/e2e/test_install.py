"""kbuild installed the two ways users install it, with the source tree it was built from out of
reach (renamed): `cmake --install` into a prefix that is then moved, and the pip wheel
(scikit-build-core) in a fresh virtual environment. Each runs init -> check -> build of a template
and `kbuild skill install`."""

import json
import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from e2e_support import REPO_ROOT, VENV_PYTHON, describe, has_nvcc, variant_dir

pytestmark = pytest.mark.skipif(not has_nvcc() or shutil.which("cmake") is None,
                                reason="needs nvcc and cmake to build kbuild and a template")

# What `ldd kbuild` may show for the wheel's binary: the C library and the loader, nothing that
# differs between Debian and the GPU machine's Ubuntu.
SYSTEM_LIBRARIES = ("linux-vdso", "libc.so", "libm.so", "ld-linux", "libpthread.so", "libdl.so",
                    "librt.so")


def run(argv, **kwargs):
    result = subprocess.run([str(a) for a in argv], text=True, capture_output=True, **kwargs)
    assert result.returncode == 0, describe(result)
    return result


def copy_source_tree(dest):
    """The files a clone of this checkout holds (tracked, plus new files not ignored)."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                 cwd=REPO_ROOT).stdout
    for rel in filter(None, listed.split("\0")):
        src = REPO_ROOT / rel
        if src.is_symlink():  # templates reach the kernel library through links, as in a clone
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(src), dest / rel)
        elif src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def build_env(source):
    """Both builds share ccache hits: paths are hashed relative to the source copy."""
    env = dict(os.environ, CCACHE_BASEDIR=str(source), CCACHE_NOHASHDIR="1")
    env.pop("KBUILD_HOME", None)
    return env


def torch_site_packages():
    return Path(run([VENV_PYTHON, "-c", "import torch, os; print(os.path.dirname("
                     "os.path.dirname(torch.__file__)))"]).stdout.strip())


@pytest.fixture(scope="module")
def installs(tmp_path_factory):
    """(kbuild in a moved prefix, kbuild in a fresh venv, the venv); the source copy they were
    built from is renamed before any test runs."""
    root = tmp_path_factory.mktemp("install")
    source = root / "src"
    copy_source_tree(source)
    env = build_env(source)

    build = root / "build"
    run(["cmake", "-S", source, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
         "-DKBUILD_BUILD_TESTS=OFF"], env=env)
    run(["cmake", "--build", build], env=env, timeout=1800)
    run(["cmake", "--install", build, "--prefix", root / "prefix-a"], env=env)
    prefix = root / "prefix-b"
    (root / "prefix-a").rename(prefix)
    shutil.rmtree(build)

    wheels = root / "wheels"
    run([VENV_PYTHON, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", wheels,
         source], env=env, timeout=1800)
    env_dir = root / "venv"
    venv.create(env_dir, with_pip=True)
    venv_python = env_dir / "bin" / "python3"
    (wheel,) = wheels.glob("kbuild-*.whl")
    run([venv_python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheel])
    # The fresh environment gets torch the cheap way: the test venv's packages on its path.
    site = run([venv_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    Path(site.stdout.strip(), "torch-from-test-venv.pth").write_text(f"{torch_site_packages()}\n")

    source.rename(root / "src-out-of-reach")
    return {"prefix": prefix / "bin" / "kbuild", "wheel": env_dir / "bin" / "kbuild",
            "wheel_file": wheel, "venv": env_dir}


def user_env(base_env, tmp_path, **extra):
    """A user's shell: no KBUILD_HOME, no source tree, a private cache."""
    env = dict(base_env, KBUILD_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("KBUILD_HOME", None)
    env.update(extra)
    return env


def kbuild_run(binary, env, *args, cwd=None):
    return subprocess.run([str(binary), *map(str, args)], env=env, cwd=cwd, text=True,
                          capture_output=True, timeout=900)


def init_check_build(binary, env, parent):
    project = parent / "installed-op"
    for args, cwd in ((("init", "installed-op", "--template", "blank", "--dir", project), None),
                      (("check",), project), (("build",), project)):
        result = kbuild_run(binary, env, *args, cwd=cwd)
        assert result.returncode == 0, describe(result)
    assert (variant_dir(project) / "metadata.json").is_file()
    return project


@pytest.mark.parametrize("kind", ["prefix", "wheel"])
def test_installed_kbuild_finds_its_data_beside_itself(installs, base_env, tmp_path, kind):
    result = kbuild_run(installs[kind], user_env(base_env, tmp_path), "doctor", "--no-bench",
                        "--json")
    home = json.loads(result.stdout)["kbuild_home"]
    assert home["found_by"] == "installed beside the executable", describe(result)
    assert Path(home["path"]) == installs[kind].parent.parent / "share" / "kbuild"


def test_moved_prefix_builds_a_template(installs, base_env, tmp_path):
    init_check_build(installs["prefix"], user_env(base_env, tmp_path), tmp_path)


def test_wheel_in_a_fresh_venv_builds_a_template(installs, base_env, tmp_path):
    # No KBUILD_PYTHON and the venv not on PATH: kbuild asks the python3 installed beside it.
    env = user_env(base_env, tmp_path, PATH="/usr/local/cuda/bin:/usr/bin:/bin")
    env.pop("KBUILD_PYTHON", None)
    env.pop("VIRTUAL_ENV", None)
    project = init_check_build(installs["wheel"], env, tmp_path)
    torch_env = json.loads((project / "build" / "torch-env.json").read_text())
    assert torch_env["key"]["python"] == str(installs["venv"] / "bin" / "python3")


@pytest.mark.parametrize("kind", ["prefix", "wheel"])
def test_skill_install_from_the_installed_copy(installs, base_env, tmp_path, kind):
    result = kbuild_run(installs[kind], user_env(base_env, tmp_path), "-C", tmp_path, "skill",
                        "install", "--claude")
    assert result.returncode == 0, describe(result)
    installed = tmp_path / ".claude" / "skills" / "cuda-kernels" / "SKILL.md"
    assert installed.read_text() == (REPO_ROOT / "skills/cuda-kernels/SKILL.md").read_text()


def test_kbuild_home_still_overrides_the_install(installs, base_env, tmp_path):
    env = user_env(base_env, tmp_path, KBUILD_HOME=str(tmp_path / "no-such-data"))
    result = kbuild_run(installs["prefix"], env, "init", "x-op", "--dir", tmp_path / "x-op")
    assert result.returncode == 4, describe(result)
    assert "KBUILD_HOME" in result.stdout + result.stderr


def test_wheel_binary_needs_only_system_libraries(installs):
    assert installs["wheel_file"].name.endswith("-py3-none-linux_x86_64.whl")
    ldd = run(["ldd", installs["wheel"]]).stdout
    needed = [line.split()[0] for line in ldd.splitlines() if line.strip()]
    unexpected = [lib for lib in needed if not Path(lib).name.startswith(SYSTEM_LIBRARIES)]
    assert not unexpected, f"the wheel's kbuild needs {unexpected}:\n{ldd}"
