"""Every KGMEM_* variable is read through kgmem.settings.Settings: a misspelt setting is
refused with the setting it was meant to be, an unknown name is named in a warning, and the
names the repository's own tools use (scripts, docker-compose, benchmarks, tests) are known."""

from __future__ import annotations

import logging
import re
import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from kgmem import settings as settings_module
from kgmem.settings import Settings, check_variables, variable_names

ROOT = Path(__file__).resolve().parents[2]
# KGMEM_ words that are not environment variables: Neo4j labels and relationship types, a
# constant of the benchmarks, and the prefixes docs write as ``KGMEM_LLM_*``
NOT_VARIABLES = {"KGMEM_", "KGMEM_LLM_", "KGMEM_NEO4J_", "KGMEM_LLAMA_", "KGMEM_CHUNK", "KGMEM_TIME",
                 "KGMEM_SUPPORTS", "KGMEM_TEST_R", "KGMEM_ROOT",
                 "KGMEM_NEO4J_PASWORD"}  # kgmem/settings.py's example of a misspelt name


def test_a_misspelt_setting_is_refused_with_the_one_meant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGMEM_NEO4J_PASWORD", "secret")
    with pytest.raises(ValidationError, match="did you mean KGMEM_NEO4J_PASSWORD"):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_an_unknown_name_far_from_every_setting_is_named_once_and_ignored(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("KGMEM_DEPLOY_COLOUR", "blue")
    monkeypatch.setattr(settings_module, "_WARNED", set())
    with caplog.at_level(logging.WARNING, logger="kgmem.settings"):
        Settings(_env_file=None)  # type: ignore[call-arg]
        Settings(_env_file=None)  # type: ignore[call-arg]
    said = [r.getMessage() for r in caplog.records if "KGMEM_DEPLOY_COLOUR" in r.getMessage()]
    assert said == ["KGMEM_DEPLOY_COLOUR is not a kgmem setting: ignored"]


def test_settings_and_tool_variables_pass() -> None:
    check_variables({"KGMEM_HOME": "/x", "KGMEM_LLM_TIMEOUT": "3", "KGMEM_SPACY_MODEL": "m",
                     "KGMEM_NEO4J_HEAP": "1g", "KGMEM_LLAMA_PORT": "8080", "PATH": "/bin"})


def test_the_llm_and_spacy_variables_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGMEM_LLM_TIMEOUT", "7.5")
    monkeypatch.setenv("KGMEM_LLM_PRICES", '{"m": [1, 2]}')
    monkeypatch.setenv("KGMEM_SPACY_MODEL", "en_other")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (s.llm_timeout, s.llm_prices, s.spacy_model) == (7.5, {"m": [1, 2]}, "en_other")


def test_every_kgmem_name_the_repository_uses_is_known() -> None:
    """The names in the repository's scripts, CI, docs, tests and benchmarks (so that a
    refusal never breaks them), results aside."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    used: set[str] = set()
    for f in files:
        if (f.startswith("benchmarks/results/") or f == "tests/unit/test_settings_env.py"
                or not (ROOT / f).is_file()):
            continue
        try:
            text = (ROOT / f).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        used |= set(re.findall(r"\bKGMEM_[A-Z0-9_]*", text))
    unknown = sorted(used - variable_names() - NOT_VARIABLES)
    assert unknown == []
