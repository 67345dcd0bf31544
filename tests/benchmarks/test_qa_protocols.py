"""The QA prompts are the published ones: sha256 of each copy in benchmarks/qa_prompts.py,
taken from the upstream code named there (checked byte for byte against it when copied)."""

from __future__ import annotations

import hashlib

import pytest

from benchmarks import qa_prompts as P

UPSTREAM_SHA256 = {
    "LOCOMO_QA_PROMPT": "a30fe18a6c9b58c5d22b6188860e5a99cdfef33fcc8a36141b571d954b9b0266",
    "LOCOMO_QA_PROMPT_CAT_5": "57005b715f4c2a7c848ab0d7829037afd08d5bb68ba626e4f5a83e8493104986",
    "MEM0_ANSWER_PROMPT_ZEP": "95b8170c30bb86f0e6819cd4846e6e3cd24c9a82030f90dbe36c880b522b92fc",
    "MEM0_ACCURACY_PROMPT": "62395dd312a631dfd9355026a0b69cc936018274c3198b6365b5c2a5c9bca9e0",
    "LME_READER_PROMPT": "e427ff913456e51a132ec865b1b5038d562bdc36890976943ad421cc9b365c9d",
    "LME_ABSTENTION_PROMPT": "5c0b365a1e1d06db36377c735432b56e122ca3c428f89faf61d43a0d5a7e050b",
}
LME_JUDGE_SHA256 = {
    "single-session-user": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "single-session-assistant": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "multi-session": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "temporal-reasoning": "8d33a5fdd83afeeb4592454a965eab43d1fcb2dedc042d1d3892f4254be6c273",
    "knowledge-update": "183a9b3a6197ec620940f610cdc1207201ec98c1113dd633ea685cfc322fafac",
    "single-session-preference": "741ee3bcbea7ff5e8ed359acef61d2f8ded3de021bbcff6ee13de455f2e2aa9b",
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(UPSTREAM_SHA256))
def test_prompt_is_the_upstream_text(name):
    assert sha(getattr(P, name)) == UPSTREAM_SHA256[name]


def test_longmemeval_judge_templates_are_the_upstream_ones():
    assert {t: sha(v) for t, v in P.LME_JUDGE_PROMPTS.items()} == LME_JUDGE_SHA256


def test_locomo_adversarial_choice_order_is_fixed_per_question():
    a = P.locomo_reader("ctx", "Did Theo sell vases?", 5, "conv-1:q5", "three vases")
    b = P.locomo_reader("ctx", "Did Theo sell vases?", 5, "conv-1:q5", "three vases")
    assert a == b and set(a.choices.values()) == {"three vases", P.LOCOMO_NOT_MENTIONED}
    text = a.call.messages[0]["content"]
    assert text.startswith("ctx\n\n") and "(a) " + a.choices["a"] in text
    assert P.locomo_cat5_answer("(b)", a.choices) == a.choices["b"]
    assert P.locomo_cat5_answer("a", a.choices) == a.choices["a"]


def test_unknown_longmemeval_question_type_has_no_judge():
    with pytest.raises(ValueError, match="no judge prompt"):
        P.longmemeval_judge("open-domain", "q", "a", "r", False)
