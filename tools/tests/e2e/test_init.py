"""kbuild init: every template renders completely; collisions never overwrite."""

import json
import re

import pytest

from e2e_support import REPO_ROOT, describe, discover_templates, snapshot

TEMPLATES = discover_templates()
# What a placeholder looks like; other `{{` (C++ nested brace init) is plain text.
PLACEHOLDER = re.compile(rb"\{\{ *[A-Za-z_][A-Za-z0-9_]* *\}\}")


def test_templates_are_found():
    assert "blank" in TEMPLATES


def test_list_shows_every_template_with_its_description(kbuild):
    result = kbuild("init", "--list", "--json")
    assert result.returncode == 0, describe(result)
    listed = {t["name"]: t["description"] for t in json.loads(result.stdout)["templates"]}
    assert sorted(listed) == TEMPLATES
    human = kbuild("init", "--list")
    assert human.returncode == 0, describe(human)
    for name, description in listed.items():
        assert description, f"template {name} has an empty description"
        assert name in human.stdout and description in human.stdout


@pytest.mark.parametrize("template", TEMPLATES)
def test_init_renders_every_file(kbuild, tmp_path, template):
    project = tmp_path / "my-op"
    result = kbuild("init", "my-op", "--template", template, "--dir", project, "--json")
    assert result.returncode == 0, describe(result)
    doc = json.loads(result.stdout)
    assert doc["command"] == "init" and doc["ok"] is True
    assert doc["template"] == template
    assert doc["project_dir"] == str(project)
    on_disk = sorted(snapshot(project))
    assert sorted(doc["files"]) == on_disk
    assert (project / ".gitignore").read_text() == "build/\nresults/\ndist/\n"
    for required in ("build.toml", "torch-ext/torch_binding.cpp", "torch-ext/my_op/__init__.py"):
        assert required in on_disk, f"{template}: {required} not written"
    for rel in on_disk:
        assert "{{" not in rel, f"{template}: unrendered file name {rel}"
        survivor = PLACEHOLDER.search((project / rel).read_bytes())
        assert survivor is None, f"{template}: {survivor.group().decode()} survived in {rel}"
    assert not (project / "template.toml").exists()
    assert not (project / "kernels.toml.in").exists()


def test_init_defaults_to_blank_in_a_folder_named_after_the_project(kbuild, tmp_path):
    result = kbuild("init", "fresh-op", cwd=tmp_path)
    assert result.returncode == 0, describe(result)
    assert (tmp_path / "fresh-op" / "fresh_op_cuda").is_dir()
    assert "cd fresh-op && kbuild check && kbuild build && kbuild test && kbuild bench" in result.stdout


def test_init_never_overwrites_without_force(kbuild, tmp_path):
    project = tmp_path / "my-op"
    assert kbuild("init", "my-op", "--dir", project).returncode == 0
    (project / "build.toml").write_text("# my edits\n")
    (project / "notes.md").write_text("mine\n")
    before = snapshot(project)

    result = kbuild("init", "my-op", "--dir", project)
    assert result.returncode == 2, describe(result)
    assert "file(s) already exist: .gitignore, README.md, " in result.stderr
    assert "nothing was written; pass --force to overwrite them" in result.stderr
    assert snapshot(project) == before

    forced = kbuild("init", "my-op", "--dir", project, "--force")
    assert forced.returncode == 0, describe(forced)
    assert (project / "build.toml").read_text().startswith("# Hugging Face kernel-builder schema")
    assert (project / "notes.md").read_text() == "mine\n"


def test_init_rejects_an_invalid_name_and_writes_nothing(kbuild, tmp_path):
    result = kbuild("init", "My_Op", cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    assert "invalid project name 'My_Op'" in result.stderr
    assert "try 'my-op'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_unknown_template_suggests_and_lists(kbuild, tmp_path):
    result = kbuild("init", "my-op", "--template", "blnk", cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    assert "unknown template 'blnk'" in result.stderr
    assert "did you mean 'blank'?" in result.stderr
    assert "available templates: " + ", ".join(TEMPLATES) in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_errors_are_one_json_document(kbuild, tmp_path):
    result = kbuild("init", "My_Op", "--json", cwd=tmp_path)
    assert result.returncode == 2
    doc = json.loads(result.stdout)
    assert doc["ok"] is False and doc["exit_code"] == 2
    assert doc["error"]["message"] == "invalid project name 'My_Op'"


def test_kbuild_home_without_templates_is_an_environment_error(kbuild, tmp_path):
    env = dict(kbuild.env, KBUILD_HOME=str(tmp_path / "nowhere"))
    result = kbuild("init", "my-op", cwd=tmp_path, env=env)
    assert result.returncode == 4, describe(result)
    assert "kbuild's data folder has no 'templates'" in result.stderr
    assert "KBUILD_HOME" in result.stderr


def test_repo_root_has_the_build_toml_template():
    assert "{{kernels}}" in (REPO_ROOT / "build.toml.in").read_text()


def test_init_without_a_name_says_how_to_call_it(kbuild, tmp_path):
    result = kbuild("init", cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    assert "missing the project NAME" in result.stderr
    assert "kbuild init --list" in result.stderr
