"""Entity spans and names: NER labels corrected by the gazetteers, which spans make one name,
capitalised words that look like names, pet nouns, and stripping determiners off a span."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .. import lexicon as L

if TYPE_CHECKING:
    from spacy.tokens import Token

# entity labels whose span is taken whole as a name
ENT_KEEP = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "NORP",
                      "EVENT", "LANGUAGE", "LAW"})
_WS = re.compile(r"\s+")
_LEAD_DET = re.compile(
    r"^(?:(?:the|a|an|my|our|your|his|her|their|its|some|any|this|that|these|those|another|"
    r"such|one|two|three|four|five|six|several|many|few|a few|couple of|a couple of|lots of|"
    # "new" but not the "New" of a name ("New York City", "New Zealand")
    r"a lot of|all|both|(?-i:new|NEW|New(?!\s+[A-Z]))|current|own)\s+)+",
    re.I,
)


def strip_det(text: str) -> str:
    """A span's text without leading determiners/possessives/quantifiers and edge punctuation."""
    text = _WS.sub(" ", text).strip(" \t,.;:!?\"'()-")
    if text.endswith(("'s", "’s")) and len(text) > 3:  # "my dance studio's" presence
        text = text[:-2].rstrip()
    out = _LEAD_DET.sub("", text) if not text.lower().startswith(("the hague",)) else text
    return out.strip(" ,.;:!?\"'") or text


_GAZETTEER = [True]


def ent_type(tok: Token) -> str:
    """Entity label of a token, corrected by the small gazetteers (unless switched off with
    :func:`set_gazetteer`)."""
    label = tok.ent_type_
    if not _GAZETTEER[0]:
        return label
    low = tok.lower_
    if low in L.KNOWN_ORGS:
        return "ORG"
    if low in L.KNOWN_PRODUCTS:
        return "PRODUCT"
    if tok.ent_iob_ != "O":
        doc = tok.doc
        m = doc.user_data.get("kgmem_ent_text")
        if m is None:
            m = {}
            for ent in doc.ents:
                name = ent.text.lower()
                if name.startswith("the "):
                    name = name[4:]
                for t in ent:
                    m[t.i] = name
            doc.user_data["kgmem_ent_text"] = m
        txt = m.get(tok.i)
        if txt in L.KNOWN_ORGS:
            return "ORG"
        if txt in L.KNOWN_PRODUCTS:
            return "PRODUCT"
    return label


def set_gazetteer(enabled: bool) -> None:
    """Switch the small company/software gazetteers on or off (process-wide; for evaluation).

    They correct common NER mistakes ("Spotify" tagged GPE); the evaluation reports scores
    with and without them because a list of famous names can flatter a benchmark."""
    _GAZETTEER[0] = bool(enabled)


def looks_like_name(tok: Token) -> bool:
    """A capitalised word the tagger took for a common noun/adverb ("Alice lives ...",
    "Raj joined ..."): title case, no determiner or possessive, not a common word."""
    if not tok.is_title or tok.lower_ in L.NOT_NAMES or tok.lower_ in L.UNRESOLVABLE_PRONOUNS:
        return False
    if tok.pos_ not in ("NOUN", "ADV", "ADJ", "X", "PROPN") or tok.tag_ in ("NNS",):
        return False
    if tok.lower_.endswith("ly") or tok.lemma_.lower() in L.RELATION_NOUNS or (
        tok.lemma_.lower() in L.PET_NOUNS
    ):
        return False
    if any(c.dep_ in ("det", "poss", "amod", "prep") for c in tok.children):
        return False
    return tok.dep_ in ("nsubj", "nsubjpass", "advmod", "npadvmod", "compound")


def named(tok: Token) -> Any | None:
    """"a startup called Loomly" -> the token Loomly."""
    for ch in tok.children:
        if ch.dep_ == "acl" and ch.lemma_ in ("name", "call"):
            for cc in ch.children:
                if cc.dep_ in ("oprd", "dobj", "attr", "xcomp") and cc.pos_ == "PROPN":
                    return cc
    return None


def clean_ent(ent: Any) -> bool:
    """An entity span usable as one name (the NER sometimes swallows "Slack to Teams")."""
    for t in ent:
        if t.pos_ == "CCONJ" and t.text != "&":
            return False
        if t.pos_ == "ADP" and t.lower_ not in ("of", "de", "del", "da", "von", "van", "la"):
            return False
        if t.is_punct and t.text not in (".", "'", "-", "&"):
            return False
    return True


def is_pet_noun(tok: Token) -> bool:
    """A pet noun ("dog", "golden retriever"), not a toy or a wild animal ("stuffed dog")."""
    lemma = tok.lemma_.lower()
    if any(c.lower_ in L.NOT_PET_MODIFIERS or c.lemma_.lower() in ("animal",)
           for c in tok.children if c.dep_ in ("amod", "compound")):
        return False
    if lemma in L.PET_NOUNS:
        return True
    return any(c.dep_ == "compound" and c.lemma_.lower() in L.PET_NOUNS for c in tok.children)
