"""Episodes: raw content stored verbatim (and fed to extraction)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from kgmem.errors import InvalidInputError, NotFoundError
from kgmem.model import Episode, Erasure
from kgmem.request_bounds import bound_request_text
from kgmem.settings import Settings

from ..deps import AsOfDep, GroupDep, MemoryDep, PageDep, SettingsDep, known_by, page_of
from ..errors import errors
from ..schemas import EpisodeIn, EpisodeList, EpisodePage, EpisodesBulkIn

router = APIRouter(prefix="/episodes", tags=["episodes"])

EpisodeId = Annotated[str, Path(min_length=1, max_length=128, description="Episode id.")]


def _bound_text(episodes: list[EpisodeIn], settings: Settings) -> None:
    bound_request_text(((e.content, e.extract) for e in episodes), settings.max_episode_chars,
                       settings.max_extract_chars)


def _add(memory: MemoryDep, group: str, body: EpisodeIn) -> Episode:
    return memory.add_episode(
        body.content,
        body.reference_time,
        source=body.source,
        speaker=body.speaker,
        group=group,
        source_description=body.source_description,
        extract=body.extract,
        user_name=body.user_name,
    )


@router.post("", status_code=201, response_model=Episode, summary="Add an episode",
             responses=errors(409, 413))
def add_episode(body: EpisodeIn, memory: MemoryDep, group: GroupDep,
                settings: SettingsDep) -> Episode:
    """Store an episode verbatim and run extraction. Idempotent: the same content, reference
    time, source and speaker return the already stored episode. Content longer than
    ``max_episode_chars`` is refused (413 content_too_large), and longer than
    ``max_extract_chars`` unless ``extract`` is false (413 extraction_too_large)."""
    _bound_text([body], settings)
    return _add(memory, group, body)


@router.post("/bulk", status_code=201, response_model=EpisodeList, summary="Add many episodes",
             responses=errors(409, 413))
def add_episodes(body: EpisodesBulkIn, memory: MemoryDep, group: GroupDep,
                 settings: SettingsDep) -> EpisodeList:
    """Add episodes in order, all or nothing: every item is validated first (a 422 lists each
    bad item in ``details.errors`` as ``{index, field, message}``), then all of them and their
    facts are one atomic write. Idempotent per episode, so a failed request can simply be sent
    again."""
    if len(body.episodes) > settings.max_list:
        raise InvalidInputError(
            f"at most {settings.max_list} episodes per request",
            field="episodes", max=settings.max_list, got=len(body.episodes),
        )
    _bound_text(body.episodes, settings)
    items = [e.model_dump() for e in body.episodes]
    return EpisodeList(items=memory.add_episodes(items, group=group, batch_size=len(items)))


@router.get("", response_model=EpisodePage, summary="List episodes")
def list_episodes(memory: MemoryDep, group: GroupDep, page: PageDep, at: AsOfDep) -> dict:
    """Episodes by reference time. ``known_at`` hides episodes recorded after it;
    ``valid_at`` has no effect here."""
    items = memory.episodes(group=group, limit=page.limit + 1, offset=page.offset)
    more = len(items) > page.limit
    return page_of(known_by(items[: page.limit], at), page, more)


@router.get("/{episode_id}", response_model=Episode, summary="Get one episode",
            responses=errors(404))
def get_episode(episode_id: EpisodeId, memory: MemoryDep, group: GroupDep,
                at: AsOfDep) -> Episode:
    """One episode; 404 when it does not exist in this group (or was recorded after
    ``known_at``)."""
    ep = memory.episode(episode_id, group=group)
    if not known_by([ep], at):
        raise NotFoundError(f"episode {episode_id!r} was not recorded yet at known_at",
                            episode=episode_id)
    return ep


@router.delete("/{episode_id}", response_model=Erasure, summary="Erase an episode",
               responses=errors(404, 409))
def erase_episode(episode_id: EpisodeId, memory: MemoryDep, group: GroupDep) -> Erasure:
    """Physically delete the episode and every fact derived only from it (privacy). Not
    undoable; an audit record without content remains."""
    return memory.erase(episode=episode_id, group=group)
