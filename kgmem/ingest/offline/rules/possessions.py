"""Possessions: "own" a pet (HAS_PET) or a business (OWNS, through the leading rules)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..context import Context
from ..entities import is_pet_noun
from ..tree import child
from .pets import have
from .roles import lead

if TYPE_CHECKING:
    from spacy.tokens import Token


def own(c: Context, v: Token) -> None:
    """"I own a dog" (HAS_PET), "I own a bakery" (OWNS, through the leading rules)."""
    dobj = child(v, "dobj")
    if dobj is not None and is_pet_noun(dobj):
        have(c, v)
    else:
        lead(c, v)
