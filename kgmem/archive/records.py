"""The lines of a kgmem archive: one JSON object per line, ``kind`` first. A header names the
format and its version; each group's records follow its ``group`` line, parents before
children; an ``end`` line with the counts closes the archive (a truncated file is refused)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..errors import InvalidInputError
from ..model import Change, Entity, Episode, Erasure, FactVersion
from ..store.base import ChangeEffect, Declaration, LineageState, SummaryHistory

FORMAT = "kgmem-archive"
VERSION = 2  # 2: lineages carry their provenance links' times (sources); 1 is still read


class ArchiveError(InvalidInputError):
    """The file is not a kgmem archive this version reads, or a line of it is malformed."""

    type = "invalid_archive"


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Header(_Line):
    kind: Literal["header"] = "header"
    format: Literal["kgmem-archive"] = "kgmem-archive"
    version: int = VERSION
    kgmem: str
    exported_at: datetime
    groups: list[str]


class GroupLine(_Line):
    kind: Literal["group"] = "group"
    group: str
    last_tx_time: datetime | None
    first_change: str | None  # what tells a re-import from a different memory of that name


class DeclarationLine(_Line):
    kind: Literal["declaration"] = "declaration"
    declaration: Declaration


class EntityLine(_Line):
    kind: Literal["entity"] = "entity"
    entity: Entity  # aliases are alias lines
    norm_name: str


class AliasLine(_Line):
    kind: Literal["alias"] = "alias"
    group: str
    entity_id: str
    alias: str
    norm_alias: str


class EpisodeLine(_Line):
    kind: Literal["episode"] = "episode"
    episode: Episode
    content_hash: str


class MentionLine(_Line):
    kind: Literal["mention"] = "mention"
    episode_id: str
    entity_id: str


class LineageLine(_Line):
    """A lineage's stated belief and every version of it (provenance in each version's
    ``episodes``, and in ``sources`` when each link was recorded): one unit, imported in one
    write."""

    kind: Literal["lineage"] = "lineage"
    state: LineageState
    versions: list[FactVersion]
    #: episode id -> the transaction time its provenance link was recorded (absent in
    #: archives written before links had times: the import takes the lineage's first version's)
    sources: dict[str, datetime] = Field(default_factory=dict)


class ChangeLine(_Line):
    kind: Literal["change"] = "change"
    change: Change
    effects: list[ChangeEffect]


class ErasureLine(_Line):
    kind: Literal["erasure"] = "erasure"
    erasure: Erasure


class SummaryLine(_Line):
    kind: Literal["summary"] = "summary"
    group: str
    entity_id: str
    history: SummaryHistory


class EndLine(_Line):
    kind: Literal["end"] = "end"
    counts: dict[str, int]


Record = Annotated[
    Header | GroupLine | DeclarationLine | EntityLine | AliasLine | EpisodeLine | MentionLine
    | LineageLine | ChangeLine | ErasureLine | SummaryLine | EndLine,
    Field(discriminator="kind")]
RECORD: TypeAdapter[Record] = TypeAdapter(Record)


def dump_line(record: BaseModel) -> str:
    return record.model_dump_json() + "\n"


def read_line(text: str, number: int) -> Record:
    try:
        return RECORD.validate_json(text)
    except ValueError as exc:
        first = str(exc).splitlines()
        raise ArchiveError(f"archive line {number}: not a record this kgmem reads "
                           f"({'; '.join(first[:3])})", line=number) from None
