"""What a sitting (one conversation, episodes at most ``kgmem.timeline.SITTING_GAP`` apart)
has said so far that later turns lean on: who is talking to whom, the people named (a later
"she"), the relatives and partners named by each speaker (a later "my partner"), and when
the previous sitting ended ("since we last talked")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kgmem.timeline import same_sitting


@dataclass
class Sitting:
    """One sitting's memory; ``learn`` adds what an utterance named."""

    last_sitting: datetime | None = None  # when the sitting before this one ended
    last_time: datetime | None = None
    speakers: list[str] = field(default_factory=list)  # most recent last
    people: list[str] = field(default_factory=list)  # third parties named, most recent last
    relatives: dict[tuple[str, str], str] = field(default_factory=dict)
    # a chat role ("user") -> the name its speaker gave ("my name is Priya")
    names: dict[str, str] = field(default_factory=dict)
    # speaker -> the unnamed pet they told of last ("I got a puppy"), for a name told later
    pets: dict[str, str] = field(default_factory=dict)
    # (speaker, pet noun) -> the name given to it later in the sitting ("his name is Rex")
    named_pets: dict[tuple[str, str], str] = field(default_factory=dict)
    # the title of the document being read (its later pieces have none of their own)
    title: str | None = None
    # whether the text being read continues the one before (a long document's next piece)
    continued: bool = False
    title_class: str | None = None
    # the person it is about (name, gender), for a "he" in a later piece
    topic: tuple[str, str | None] | None = None

    def addressee(self, speaker: str) -> str | None:
        """Whom ``speaker`` is talking to: the last other speaker of the sitting."""
        return next((s for s in reversed(self.speakers) if s != speaker), None)

    def learn(self, speaker: str, people: list[str], relatives: dict[str, str],
              when: datetime) -> None:
        if speaker in self.speakers:
            self.speakers.remove(speaker)
        self.speakers.append(speaker)
        for name in people:
            if name in self.speakers:
                continue
            if name in self.people:
                self.people.remove(name)
            self.people.append(name)
        for lemma, name in relatives.items():
            self.relatives[(speaker, lemma)] = name
        self.last_time = when


class Sittings:
    """The sitting of each conversation (``group``; ``None`` when items carry none) as
    utterances arrive in order: a gap longer than a sitting, or time going back, starts a new
    one whose ``last_sitting`` is when the previous one ended."""

    def __init__(self) -> None:
        self._current: dict[str | None, Sitting] = {}

    def sitting_for(self, group: str | None, when: datetime,
                    last_sitting: datetime | None = None, continues: bool = False) -> Sitting:
        cur = self._current.get(group)
        if continues and cur is not None:
            cur.continued = True
            return cur  # the next piece of the same long text
        if cur is not None:
            cur.continued = False
        # the same instant again says nothing about order (a batch of unrelated texts dated
        # alike): a new sitting, so names do not leak between them
        if cur is not None and cur.last_time is not None and cur.last_time < when and (
                same_sitting(cur.last_time, when)):
            return cur
        ended = cur.last_time if cur is not None and cur.last_time is not None and (
            cur.last_time < when) else None
        new = Sitting(last_sitting=last_sitting or ended)
        self._current[group] = new
        return new
