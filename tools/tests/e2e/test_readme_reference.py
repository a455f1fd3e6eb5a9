"""README.md's command reference is generated from `kbuild --help`; it must match the binary."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_readme_command_reference_matches_the_cli(kbuild_bin):
    script = ROOT / "tools" / "scripts" / "gen_cli_reference.py"
    r = subprocess.run([sys.executable, str(script), str(kbuild_bin), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
