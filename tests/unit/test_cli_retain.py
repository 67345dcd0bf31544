"""kgmem retain: --dry-run lists what the policy expires and changes nothing; without it the
items go, each with its audit id."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli import cli


def test_retain_dry_run_then_apply(tmp_path: Path) -> None:
    home = tmp_path / "home"
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"episodes": True, "keep_days": 30},
                                            {"facts": True, "predicate": "LIKES",
                                             "keep_days": 10}]}))
    assert cli(home, "add", "an old note", "--time", "2001-01-01")[0] == 0
    assert cli(home, "assert", "Ann", "LIKES", "tea", "--valid-at", "2001-01-01")[0] == 0
    assert cli(home, "assert", "Ann", "LIVES_IN", "Oslo", "--valid-at", "2001-01-01")[0] == 0
    code, out = cli(home, "--json", "retain", "--policy", str(policy), "--dry-run")
    assert code == 0
    dry = json.loads(out)
    assert dry["dry_run"] and sorted(a["action"] for a in dry["actions"]) == [
        "erase", "invalidate"]
    assert json.loads(cli(home, "--json", "facts")[1]) and len(
        json.loads(cli(home, "--json", "facts")[1])) == 2  # nothing changed
    code, out = cli(home, "retain", "--policy", str(policy))
    assert code == 0 and "2 item(s) expired" in out
    assert [f["object"] for f in json.loads(cli(home, "--json", "facts")[1])] == ["Oslo"]
    code, out = cli(home, "retain", "--policy", str(tmp_path / "missing.json"))
    assert code != 0 and "retention policy" in out
