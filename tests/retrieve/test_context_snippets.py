"""What a block shows of each episode, on both stores: a long document gives the passage that
answers the question (with ``…`` for what was left out) instead of its first lines or
nothing; a short chat turn is shown whole; the budget holds on the text returned."""

from __future__ import annotations

from kgmem.embed import count_tokens
from kgmem.retrieve import context
from kgmem.retrieve.snippets import QueryWords, render, same_word, sentences, snippet

from .test_context import _data_lines

BIO = (
    "Elena Marsh is a Canadian hydrologist and science writer. She was born in Thunder Bay, "
    "Ontario, in 1971. As a teenager she spent summers on her uncle's fishing boat on Lake "
    "Superior.\n\nMarsh studied geography at the University of Manitoba and completed a "
    "doctorate on river ice at McGill University in 1999. After a short fellowship in Norway "
    "she returned to Canada. In 2001 Marsh joined Environment Canada as a research scientist "
    "in Saskatoon. She led the agency's prairie drought programme from 2006 to 2012.\n\n"
    "Marsh has written two books for general readers. The first, Thin Ice, appeared in 2009 "
    "and won the Lane Anderson Award in 2010. Her second book, The Quiet Flood, was published "
    "in 2017. She married the sculptor Tomas Reyes in 2004 and builds cedar-strip canoes."
)


def test_a_long_document_gives_the_passage_that_answers(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    doc = m.add_episode(BIO, "2024-03-01T09:00:00Z", source="text", group=g)
    for i in range(6):
        m.add_episode(f"Chat {i}: we talked about canoes and lakes again.",
                      f"2024-04-0{i + 1}T10:00:00Z", speaker="Ana", group=g)
    for budget in (120, 200, 500):
        block = context(m, "Which award did the book Thin Ice win?", budget_tokens=budget,
                        group=g)
        assert block.tokens == count_tokens(block.text) <= budget
        assert doc.id in [e.id for e in block.episodes]
        line = next(ln for ln in _data_lines(block.text) if "Thin Ice" in ln)
        assert "won the Lane Anderson Award in 2010" in line, line
        assert "…" in line and "Elena Marsh is a Canadian" not in line  # not its opening


def test_a_short_chat_turn_is_shown_whole(smem):  # type: ignore[no-untyped-def]
    m, g = smem
    text = "Thanks, Mel! And yup, I do- Oscar, my guinea pig. He's been great."
    m.add_episode(text, "2023-08-23T10:00:00Z", speaker="Caroline", group=g)
    block = context(m, "What pet does Caroline have?", budget_tokens=200, group=g)
    assert f'Caroline: "{text}"' in block.text


def test_sentences_cover_the_text_and_render_marks_what_was_left_out():
    text = "Hi there!  First point. Second point?\nThird line without stop\n\nLast one."
    spans = sentences(text)
    assert [text[a:b] for a, b in spans] == [
        "Hi there!", "First point.", "Second point?", "Third line without stop", "Last one."]
    assert render(text, [spans[1], spans[2]]) == "… First point. Second point? …"
    assert render(text, [spans[0], spans[4]]) == "Hi there! … Last one."
    assert same_word("paint", "painted") and same_word("adopt", "adopting")
    assert not same_word("art", "article") and not same_word("ice", "iceland")


def test_a_snippet_keeps_the_matching_sentence_and_the_one_after_it():
    text = ("Hey! Long day at work, honestly so tired. How are your pets doing lately? "
            "Oscar, my guinea pig, is great. We also repainted the kitchen last weekend, "
            "which took forever and cost a fortune in paint and brushes.")
    words = QueryWords.of("How are the pets?", [text, "another turn", "and one more"])
    spans = snippet(text, words, count_tokens(text), room=40, count=count_tokens)
    shown = render(text, spans)
    assert shown == "… How are your pets doing lately? Oscar, my guinea pig, is great. …"
    # a name the whole conversation is about matches no sentence by itself
    named = QueryWords.of("What did Caroline paint?", [text], common={"caroline"})
    assert set(named.weights) == {"paint"}
