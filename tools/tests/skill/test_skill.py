"""End-to-end tests of `kbuild skill check` and `kbuild skill install` with the real binary.

KBUILD_BIN names the binary (tools/scripts/run-tests.sh sets it).
"""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
KBUILD = os.environ.get("KBUILD_BIN", str(ROOT / "_build" / "tools" / "kbuild" / "kbuild"))


def kbuild(*args, env=None, cwd=None):
    full_env = dict(os.environ, KBUILD_HOME=str(ROOT))
    full_env.update(env or {})
    return subprocess.run([KBUILD, *args], capture_output=True, text=True, env=full_env, cwd=cwd,
                          timeout=900)


@pytest.fixture(autouse=True)
def _need_binary():
    if not pathlib.Path(KBUILD).exists():
        pytest.skip(f"kbuild binary not built at {KBUILD} (set KBUILD_BIN)")


def test_skill_md_links_resolve_in_the_source_tree():
    """Installed, SKILL.md sits beside references/ and templates/; in this tree its folder holds
    links to them, so an agent (or a person) reading the repo follows the same links."""
    import re

    skill = ROOT / "skills" / "cuda-kernels" / "SKILL.md"
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", skill.read_text())
    relative = [t for t in targets if "://" not in t]
    assert relative, "SKILL.md links nowhere"
    missing = [t for t in relative if not (skill.parent / t).exists()]
    assert missing == []


def test_skill_md_lists_every_reference_in_its_table():
    skill = (ROOT / "skills" / "cuda-kernels" / "SKILL.md").read_text()
    table = skill[skill.index("## References"):]
    missing = [p.name for p in sorted((ROOT / "references").glob("*.md"))
               if f"](references/{p.name})" not in table]
    assert missing == []


def test_skill_pack_passes_its_own_check():
    venv_python = ROOT / ".venv" / "bin" / "python3"
    env = {"KBUILD_PYTHON": str(venv_python)} if venv_python.exists() else {}
    result = kbuild("skill", "check", "--json", env=env)
    doc = json.loads(result.stdout)
    assert doc["problems"] == [], result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
    assert doc["compiled"] + doc["fragments"] == doc["code_blocks"]
    assert doc["compiled"] > 0 and doc["command_lines"] > 0
    assert doc["skill_words"] <= 1500


def installed(base, *parts):
    return pathlib.Path(base, *parts, "cuda-kernels")


@pytest.mark.parametrize("flag,folder", [("--claude", ".claude/skills"),
                                         ("--codex", ".codex/skills"),
                                         ("--opencode", ".opencode/skills")])
def test_install_into_project_for_each_agent(tmp_path, flag, folder):
    result = kbuild("-C", str(tmp_path), "skill", "install", flag, "--json")
    assert result.returncode == 0, result.stderr
    target = installed(tmp_path, folder)
    assert (target / "SKILL.md").is_file()
    assert (target / "references" / "README.md").is_file()
    assert (target / ".kbuild-skill-manifest.json").is_file()
    written = json.loads(result.stdout)["installs"][0]["written"]
    assert "SKILL.md" in written


def test_default_agent_is_claude(tmp_path):
    assert kbuild("-C", str(tmp_path), "skill", "install").returncode == 0
    assert (installed(tmp_path, ".claude/skills") / "SKILL.md").is_file()


def test_global_install_goes_under_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = kbuild("skill", "install", "--global", "--claude", "--codex", "--opencode",
                    env={"HOME": str(home)}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for folder in (".claude/skills", ".codex/skills", ".config/opencode/skills"):
        assert (installed(home, folder) / "SKILL.md").is_file()
    assert not (tmp_path / ".claude").exists()


def test_dest_installs_into_path(tmp_path):
    result = kbuild("skill", "install", "--dest", str(tmp_path / "skills"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "skills" / "cuda-kernels" / "SKILL.md").is_file()


def test_reinstall_refuses_local_edits_unless_forced(tmp_path):
    assert kbuild("-C", str(tmp_path), "skill", "install").returncode == 0
    again = kbuild("-C", str(tmp_path), "skill", "install")
    assert again.returncode == 0, again.stderr
    assert "0 written" in again.stdout

    skill = installed(tmp_path, ".claude/skills") / "SKILL.md"
    skill.write_text(skill.read_text() + "\nmy local note\n")
    refused = kbuild("-C", str(tmp_path), "skill", "install")
    assert refused.returncode == 2
    assert "refusing to overwrite locally edited files" in refused.stderr
    assert str(skill) in refused.stderr or "SKILL.md" in refused.stderr
    assert "my local note" in skill.read_text()

    forced = kbuild("-C", str(tmp_path), "skill", "install", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "my local note" not in skill.read_text()
