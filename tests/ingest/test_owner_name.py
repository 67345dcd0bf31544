"""The user's name given by the caller (issue 31): a chat role that stands for the user is
stored as that person, through the library, its default (KGMEM_USER_NAME) and REST."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kgmem.errors import InvalidInputError
from kgmem.ingest.episodes import owner_speaker
from kgmem.ingest.pipeline import make_extractor
from kgmem.memory.facade import Memory
from kgmem.settings import Settings
from kgmem.trust import TrustPolicy
from tests.conftest import ManualClock

UTC = timezone.utc
WHEN = datetime(2024, 6, 1, 10, tzinfo=UTC)


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return make_extractor()


def _memory(tmp_path, extractor, **kw) -> Memory:  # type: ignore[no-untyped-def]
    return Memory(tmp_path, clock=ManualClock(datetime(2024, 7, 1, tzinfo=UTC)),
                  extractor=extractor, **kw)


def _names(m: Memory) -> set[str]:
    return {e.name.lower() for e in m.entities()}


def test_only_the_user_role_takes_the_name() -> None:
    assert owner_speaker("user", "Priya") == "Priya"
    assert owner_speaker("Human", "Priya") == "Priya"
    assert owner_speaker("assistant", "Priya") == "assistant"
    assert owner_speaker("Dana", "Priya") == "Dana"
    assert owner_speaker(None, "Priya") is None
    assert owner_speaker("user", None) == "user"


def test_user_name_names_the_speaker_and_no_entity_is_user(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = _memory(tmp_path, extractor)
    ep = m.add_episode("I live in Austin and I'm allergic to peanuts.", WHEN, speaker="user",
                       user_name="Priya")
    assert ep.speaker == "Priya"
    facts = {(v.subject, v.predicate, v.object) for v in m.facts()}
    assert ("Priya", "LIVES_IN", "Austin") in facts
    assert ("Priya", "ALLERGIC_TO", "peanuts") in facts
    assert "user" not in _names(m)


def test_the_callers_name_wins_over_the_texts(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = _memory(tmp_path, extractor)
    m.add_episodes([{"content": "My name is Pri. I live in Austin.", "reference_time": WHEN,
                     "speaker": "user"}], user_name="Priya Shah")
    assert {v.subject for v in m.facts(predicate="LIVES_IN")} == {"Priya Shah"}


def test_the_memory_default_and_an_items_own_name(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = _memory(tmp_path, extractor, user_name="Ana")
    m.add_episodes([{"content": "I live in Lisbon.", "reference_time": WHEN, "speaker": "user"},
                    {"content": "I live in Porto.", "reference_time": WHEN, "speaker": "user",
                     "user_name": "Rui", "group": "other"},
                    {"content": "I am an assistant.", "reference_time": WHEN,
                     "speaker": "assistant"}])
    assert {(v.subject, v.object) for v in m.facts(predicate="LIVES_IN")} == {("Ana", "Lisbon")}
    assert {(v.subject, v.object) for v in m.facts(predicate="LIVES_IN", group="other")} == {
        ("Rui", "Porto")}


def test_without_a_name_the_role_stays(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = _memory(tmp_path, extractor)
    assert m.add_episode("I live in Oslo.", WHEN, speaker="user").speaker == "user"


def test_a_role_is_not_a_name(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = _memory(tmp_path, extractor)
    with pytest.raises(InvalidInputError, match="chat role"):
        m.add_episode("I live in Oslo.", WHEN, speaker="user", user_name="assistant")
    assert m.episodes() == []


def test_trust_rules_still_match_the_role(tmp_path, extractor) -> None:  # type: ignore[no-untyped-def]
    m = _memory(tmp_path, extractor,
                trust=TrustPolicy.from_spec(None, "user=untrusted", "normal"))
    ep = m.add_episode("I live in Oslo.", WHEN, speaker="user", user_name="Ola")
    assert (ep.speaker, ep.trust) == ("Ola", "untrusted")


def test_the_setting_reaches_the_memory(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kgmem.factory import open_memory

    monkeypatch.setenv("KGMEM_USER_NAME", "Priya")
    m = open_memory(Settings(home=tmp_path, extractor="none"))
    try:
        assert m.user_name == "Priya"
        assert m.add_episode("hi", WHEN, speaker="user").speaker == "Priya"
    finally:
        m.close()


def test_rest_takes_user_name(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from kgmem.api.app import create_app

    app = create_app(Settings(home=tmp_path, extractor="none"))
    with TestClient(app) as client:
        r = client.post("/v1/episodes", json={"content": "hi", "reference_time": "2024-06-01",
                                              "speaker": "user", "user_name": "Priya"})
        assert r.status_code == 201, r.text
        assert r.json()["speaker"] == "Priya"
        bad = client.post("/v1/episodes", json={"content": "hi", "reference_time": "2024-06-01",
                                                "speaker": "user", "user_name": "human"})
        assert bad.status_code == 422, bad.text


def test_cli_takes_user_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from kgmem.cli.main import app as cli_app

    home = tmp_path / "cli"
    r = CliRunner().invoke(cli_app, ["--home", str(home), "--extractor", "none", "add", "hi",
                                     "-t", "2024-06-01", "--speaker", "user",
                                     "--user-name", "Priya"])
    assert r.exit_code == 0, r.output
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"content": "hello", "reference_time": "2024-06-02", "speaker": "user"}\n')
    r = CliRunner().invoke(cli_app, ["--home", str(home), "--extractor", "none", "ingest",
                                     str(notes), "--user-name", "Priya"])
    assert r.exit_code == 0, r.output
    with Memory(home, extractor=None) as m:
        assert sorted(e.speaker or "" for e in m.episodes()) == ["Priya", "Priya"]
