"""The command line itself: help text, dispatch, unknown commands."""

import pytest

from e2e_support import describe, discover_commands

COMMANDS = discover_commands()


def test_command_table_is_found():
    assert "init" in COMMANDS and "build" in COMMANDS, COMMANDS


def test_help_lists_every_command_and_the_exit_codes(kbuild):
    result = kbuild("--help")
    assert result.returncode == 0, describe(result)
    for command in COMMANDS:
        assert f"\n  {command} " in result.stdout, f"'{command}' missing from --help"
    assert "Exit codes:" in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_help(kbuild, command):
    result = kbuild(command, "--help")
    assert result.returncode == 0, describe(result)
    assert f"Usage: kbuild {command}" in result.stdout
    assert "--json" in result.stdout or command == "skill"


def test_version(kbuild):
    result = kbuild("--version")
    assert result.returncode == 0, describe(result)
    assert result.stdout.startswith("kbuild ")


def test_unknown_command_suggests_the_nearest(kbuild):
    result = kbuild("biuld")
    assert result.returncode == 2, describe(result)
    assert "did you mean 'build'?" in result.stderr


def test_no_command_is_a_usage_error(kbuild):
    result = kbuild()
    assert result.returncode == 2, describe(result)
