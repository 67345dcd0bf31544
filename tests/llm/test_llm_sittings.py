"""One request per sitting: a conversation's turns go to the model together, each fact names
the turn it came from, long sittings are cut into chunks with earlier turns as context, and
the words that date a fact are resolved by kgmem against that turn's own time."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from kgmem import Memory
from kgmem.ingest.llm_turns import Turn, plan_chunks
from kgmem.ingest.pipeline import ExtractionPipeline
from kgmem.timeutil import Precision

from .fakeserver import Reply, Seen, counting, error, load

UTC = timezone.utc
T0 = datetime(2023, 12, 31, 23, 50, tzinfo=UTC)


def fact(turn: str, subject: str, predicate: str, obj: str, start: str | None = None,
         end: str | None = None, kind: str = "assert", evidence: str = "") -> dict:
    return {"turn": turn, "subject": subject, "predicate": predicate, "object": obj,
            "start_time": start, "end_time": end, "kind": kind, "confidence": 0.9,
            "evidence": evidence}


def answer(*facts: dict, finish: str = "stop", raw: str | None = None) -> Reply:
    body = load("empty")
    body["choices"][0]["message"]["content"] = raw if raw is not None else json.dumps(
        {"facts": list(facts)})
    body["choices"][0]["finish_reason"] = finish
    return Reply(200, body)


SITTING = [  # a conversation across midnight, then a second sitting two hours later
    ("I moved to Lisbon last year.", T0, "Ana"),
    ("Nice! My dog Rex loves it here.", T0 + timedelta(minutes=5), "Ben"),
    ("And I started at Acme last year too.", T0 + timedelta(minutes=20), "Ana"),
    ("Congrats!", T0 + timedelta(minutes=21), "Ben"),
    ("I got back from Porto yesterday.", T0 + timedelta(hours=2), "Ana"),
]


def test_a_sitting_is_one_request_and_each_fact_keeps_its_turn(server, make_extractor):
    server.push(
        answer(fact("t1", "I", "LIVES_IN", "Lisbon", "last year", evidence="I moved to Lisbon"),
               fact("t2", "I", "HAS_PET", "Rex", evidence="My dog Rex"),
               fact("t3", "Ana", "WORKS_AT", "Acme", "last year", evidence="I started at Acme")),
        answer(fact("t1", "I", "VISITED", "Porto", "yesterday")))
    ex = make_extractor(concurrency=1)
    out = ex.extract_many(SITTING)
    assert len(server.requests) == 2  # two sittings, not five turns
    first = server.requests[0].user_text
    assert "[t1] Ana: I moved to Lisbon" in first and "[t4] Ben: Congrats!" in first
    assert "Porto" not in first
    assert [[(f.subject, f.object) for f in fs] for fs in out] == [
        [("Ana", "Lisbon")], [("Ben", "Rex")], [("Ana", "Acme")], [], [("Ana", "Porto")]]
    lisbon, rex, acme, porto = out[0][0], out[1][0], out[2][0], out[4][0]
    # "last year" said on 2023-12-31 is 2022; the same words twenty minutes later, 2023
    assert (lisbon.valid_at, lisbon.valid_precision) == (datetime(2022, 1, 1, tzinfo=UTC),
                                                         Precision.YEAR)
    assert acme.valid_at == datetime(2023, 1, 1, tzinfo=UTC)
    assert porto.valid_at == datetime(2023, 12, 31, tzinfo=UTC)  # the day before 01:50
    assert porto.valid_precision is Precision.DAY and porto.time_text == "yesterday"
    assert rex.valid_at is None  # no time words: the pipeline uses the turn's time
    assert SITTING[1][0][slice(*rex.evidence)] == "My dog Rex"  # the span is in its own turn
    assert ex.stats.episodes == 5 and ex.stats.chunks == 2 and ex.stats.calls == 2


def test_time_words_the_turn_does_not_say_are_ignored(server, make_extractor):
    server.push(answer(fact("t1", "I", "LIVES_IN", "Lisbon", "2023-12-31"),
                       fact("t1", "I", "WORKS_AT", "Acme", "in 2019")))
    ex = make_extractor()
    (lisbon, acme) = ex.extract("I live in Lisbon and I joined Acme in 2019.", T0, "Ana")
    assert lisbon.valid_at is None  # a date the model made up (the old prompt's failure)
    assert acme.valid_at == datetime(2019, 1, 1, tzinfo=UTC)
    assert ex.stats.unquoted_times == 1


def test_an_end_is_dated_by_its_own_words(server, make_extractor):
    server.push(answer(fact("t1", "I", "WORKS_AT", "Acme", None, "in March", kind="end"),
                       fact("t1", "I", "LIVES_IN", "Oslo", "from 2015 to 2019")))
    (acme, oslo) = make_extractor().extract(
        "I left Acme in March. I lived in Oslo from 2015 to 2019.", T0, "Ana")
    assert acme.invalid_at == datetime(2023, 3, 1, tzinfo=UTC) and acme.valid_at is None
    assert (oslo.valid_at, oslo.invalid_at) == (datetime(2015, 1, 1, tzinfo=UTC),
                                                datetime(2019, 1, 1, tzinfo=UTC))


def long_sitting(n: int) -> list[tuple[str, datetime, str]]:
    return [(f"Turn number {i} says something fairly ordinary about the weather.",
             T0 + timedelta(minutes=i), "Ana" if i % 2 else "Ben") for i in range(1, n + 1)]


def test_a_long_sitting_is_cut_into_chunks_with_earlier_turns_as_context(server,
                                                                        make_extractor):
    items = long_sitting(6)
    server.push(answer(fact("t4", "I", "LIKES", "weather")),
                answer(fact("c1", "I", "LIKES", "rain"), fact("t2", "I", "LIKES", "sun")))
    ex = make_extractor(concurrency=1, chunk_tokens=100)
    out = ex.extract_many(items)
    assert len(server.requests) == 2
    second = server.requests[1].user_text
    assert "Context only" in second and "[c1] Ben: Turn number 4 " in second
    assert "[t1] Ana: Turn number 5 " in second and "[t2] Ben: Turn number 6 " in second
    # a fact naming a context turn is dropped (it was extracted with its own chunk)
    assert [[f.object for f in fs] for fs in out] == [[], [], [], ["weather"], [], ["sun"]]
    assert ex.stats.dropped_facts == 1 and ex.stats.context_turns == 1
    # chunk_tokens=0: one turn per request (the old cost, for comparison)
    assert len(plan_chunks([Turn(i, t, r, s) for i, (t, r, s) in enumerate(items)], 0)) == 6


def test_a_cut_off_reply_keeps_finished_turns_and_asks_again_for_the_rest(server,
                                                                          make_extractor):
    items = long_sitting(3)
    cut = json.dumps({"facts": [fact("t1", "I", "LIKES", "a"), fact("t2", "I", "LIKES", "b")]})
    server.push(answer(raw=cut[:-3] + ', {"turn": "t3", "subj', finish="length"),
                answer(fact("t1", "I", "LIKES", "b"), fact("t2", "I", "LIKES", "c")))
    ex = make_extractor(concurrency=1)
    out = ex.extract_many(items)
    assert [[f.object for f in fs] for fs in out] == [["a"], ["b"], ["c"]]
    again = server.requests[1].user_text
    assert "[c1] Ana: Turn number 1 " in again and "[t1] Ben: Turn number 2 " in again
    assert ex.stats.truncated_replies == 1 and ex.stats.facts == 3


def test_groups_never_share_a_request(server, make_extractor, tmp_path):
    server.route_path("/v1/chat/completions", counting())
    ex = make_extractor(concurrency=1)
    items = [{"content": f"Message {i} of group {g}.", "group": g, "speaker": "Ana",
              "reference_time": (T0 + timedelta(minutes=i)).isoformat()}
             for i, g in enumerate(["a", "b", "a", "b"])]
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        m.ingest(items)
    texts = [r.user_text for r in server.requests]
    assert texts and all(("group a" in t) != ("group b" in t) for t in texts)


def _items(n: int) -> list[dict]:
    return [{"content": t, "reference_time": r.isoformat(), "speaker": s}
            for t, r, s in long_sitting(n)]


def test_a_failed_sitting_fails_its_episodes_and_a_rerun_retries_exactly_them(server,
                                                                               make_extractor,
                                                                               tmp_path):
    server.push(error("500_server_error"))
    ex = make_extractor(max_retries=0, concurrency=1)
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        report = m.ingest(_items(3))
        assert report.summary()["groups"]["default"]["failed"] == 3
        assert {e.extraction.status for e in m.episodes()} == {"failed"}
        server.push(answer(fact("t2", "I", "LIKES", "weather")))
        again = m.ingest(_items(3))
        assert again.summary()["groups"]["default"]["retried"] == 3
        assert len(server.requests) == 2  # the whole sitting again, in one request
        assert {e.extraction.status for e in m.episodes()} == {"done"}
        (liked,) = m.facts(predicate="LIKES")
        ep2 = next(e for e in m.episodes() if e.content.startswith("Turn number 2 "))
        assert liked.subject == "Ben" and liked.episodes == [ep2.id]  # provenance: its turn


def test_tokens_per_turn_with_one_request_per_sitting(server, make_extractor):
    """What the change is for, on the fake server's accounting: the instructions are paid
    once per sitting instead of once per turn."""
    server.route_path("/v1/chat/completions", counting())
    items = long_sitting(20)
    per_turn = make_extractor(cache=False, chunk_tokens=0)
    per_turn.extract_many(items)
    per_sitting = make_extractor(cache=False)
    per_sitting.extract_many(items)
    assert per_turn.stats.calls == 20 and per_sitting.stats.calls == 1
    assert per_sitting.stats.prompt_tokens * 8 < per_turn.stats.prompt_tokens


def test_seen_counts_tokens_of_every_message():
    seen = Seen("/v1/chat/completions", {}, {"messages": [{"role": "user", "content": "a b."}]})
    assert counting()(seen).body["usage"]["prompt_tokens"] == 3


def test_turns_stored_one_by_one_are_extracted_later_in_one_request(server, make_extractor,
                                                                    tmp_path):
    """An agent that adds turn by turn stores them without extraction and extracts the
    sitting when it is over (docs/llm.md, "Turn by turn")."""
    server.route_path("/v1/chat/completions", counting())
    ex = make_extractor()
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        for text, ref, speaker in reversed(long_sitting(5)):  # in any order
            m.add_episode(text, ref, speaker=speaker, extract=False)
        assert server.requests == []
        report = m.extract_failed(include_skipped=True)
        assert report.summary()["groups"]["default"]["extracted"] == 5
    (req,) = server.requests
    assert req.user_text.index("Turn number 1 ") < req.user_text.index("Turn number 5 ")


def test_a_request_the_server_finds_too_long_is_asked_again_in_halves(server, make_extractor):
    too_long = Reply(400, {"error": {"message": "Requested tokens (5210) exceed context window "
                                                "of 4096", "type": "invalid_request_error"}})
    server.push(too_long, answer(fact("t1", "I", "LIKES", "a")),
                answer(fact("t2", "I", "LIKES", "d")))
    ex = make_extractor(concurrency=1)
    out = ex.extract_many(long_sitting(4))
    assert [[f.object for f in fs] for fs in out] == [["a"], [], [], ["d"]]
    second = server.requests[2].user_text  # the last two turns before it as context
    assert "[c1] Ana: Turn number 1 " in second and "[c2] Ben: Turn number 2 " in second
    assert ex.chunk_tokens < 3000  # later batches are cut to fit
    # another refusal (a bad model name) is not split
    server.push(Reply(400, {"error": {"message": "unknown parameter foo"}}))
    from kgmem.llm import LLMBadRequestError

    try:
        make_extractor(cache=False).extract_many(long_sitting(2))
    except LLMBadRequestError:
        pass
    else:
        raise AssertionError("expected the 400 to be raised")
    assert len(server.requests) == 4


def test_a_model_looping_on_one_turn_gets_the_rest_in_halves(server, make_extractor):
    loop = json.dumps({"facts": [fact("t1", "I", "LIKES", "a")] * 3})[:-3] + ', {"tu'
    server.push(answer(raw=loop, finish="length"),  # turns 1-8: only turn 1 finished
                answer(), answer())  # turns 2-4 and 5-8, each with context
    ex = make_extractor(concurrency=1)
    out = ex.extract_many(long_sitting(8))
    assert [len(fs) for fs in out] == [1] + [0] * 7
    assert len(server.requests) == 3
    assert "[t3] Ben: Turn number 4 " in server.requests[1].user_text
    assert "Turn number 5 " not in server.requests[1].user_text
    assert "[t1] Ana: Turn number 5 " in server.requests[2].user_text


def test_erasing_one_turn_of_a_sitting_forgets_the_cached_reply_about_it(server, make_extractor,
                                                                         tmp_path):
    """A reply answers a whole sitting (and shows earlier turns as context); erasing any one
    of those turns must drop it from the response cache, which holds that turn's facts."""
    server.push(answer(fact("t1", "I", "LIVES_IN", "Quarzwelden", evidence="I moved"),
                       fact("t2", "I", "HAS_PET", "Rex", evidence="My dog Rex")))
    ex = make_extractor(concurrency=1)
    items = [{"content": t, "reference_time": r.isoformat(), "speaker": s}
             for t, r, s in [("I moved to Quarzwelden last year.", T0, "Ana"),
                             ("Nice! My dog Rex loves it here.", T0 + timedelta(minutes=5),
                              "Ben")]]
    cache_file = tmp_path / "llm-cache" / "llm-responses.sqlite3"
    with Memory(tmp_path / "mem", extractor=ExtractionPipeline(ex)) as m:
        m.ingest(items)
        assert len(ex.cache or ()) == 1
        (moved,) = [e for e in m.episodes() if "Quarzwelden" in e.content]
        m.erase(episode=moved.id)
    assert ex.cache is not None and len(ex.cache) == 0
    data = b"".join(p.read_bytes() for p in cache_file.parent.iterdir())
    assert b"Quarzwelden" not in data
