"""KgmemStore is a LangGraph BaseStore (run through LangGraph's own classes: a compiled
StateGraph given the store, ToolNode running kgmem's LangChain tools for a scripted model),
on both stores: put/get/search/delete/list_namespaces, versions readable as of a time,
kgmem's ranking, namespaces as groups."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

pytest.importorskip("langgraph")  # kgmem[langgraph]; the dev extra installs it

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode  # noqa: E402
from langgraph.store.base import BaseStore  # noqa: E402

from kgmem.errors import InvalidInputError  # noqa: E402
from kgmem.integrations.langgraph import KgmemStore, kgmem_tools  # noqa: E402
from tests.conftest import ManualClock  # noqa: E402


def _ns() -> tuple[str, str]:
    return ("t" + uuid.uuid4().hex[:10], "u1")


def test_store_operations_and_versions(make_memory) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    store = KgmemStore(make_memory(clock=clock), extract=False)
    ns = _ns()
    assert isinstance(store, BaseStore)
    store.put(ns, "home", {"content": "Ann lives in Oslo", "kind": "fact"})
    first = clock()
    clock.advance(days=1)
    store.put(ns, "home", {"content": "Ann lives in Rome", "kind": "fact"})
    store.put(ns, "pet", {"content": "Ann has a cat named Tom", "kind": "pet"})
    clock.advance(days=1)
    got = store.get(ns, "home")
    assert got is not None and got.value["content"] == "Ann lives in Rome"
    assert got.created_at < got.updated_at and got.namespace == ns
    assert store.get(ns, "nothing") is None
    then = store.search(ns, filter={"known_at": first.isoformat()})
    assert [(i.key, i.value["content"]) for i in then] == [("home", "Ann lives in Oslo")]
    assert [i.key for i in store.search(ns, filter={"kind": "pet"})] == ["pet"]
    assert [i.key for i in store.search(ns, filter={"kind": {"$ne": "pet"}})] == ["home"]
    hits = store.search((ns[0],), query="which cat does Ann have?")
    assert hits and hits[0].key == "pet" and hits[0].score and hits[0].namespace == ns
    store.delete(ns, "pet")
    clock.advance(days=1)
    assert store.get(ns, "pet") is None
    assert "pet" not in [i.key for i in store.search(ns, query="cat Tom")]
    before = store.search(ns, query="cat Tom", filter={"known_at": first.isoformat()})
    assert "pet" not in [i.key for i in before]  # the pet was put after `first`
    assert ns in store.list_namespaces(prefix=(ns[0],))
    assert store.list_namespaces(prefix=(ns[0],), max_depth=1) == [(ns[0],)]
    with pytest.raises(InvalidInputError, match="namespace"):
        store.put(("bad label",), "k", {"a": 1})
    with pytest.raises(InvalidInputError, match="must be a dict"):
        store.put(ns, "k", ["not", "a", "dict"])  # type: ignore[arg-type]
    results = asyncio.run(store.abatch([]))
    assert results == []
    assert asyncio.run(store.aget(ns, "home")).value["content"] == "Ann lives in Rome"  # type: ignore[union-attr]


def test_a_graph_stores_and_recalls_through_the_store(make_memory) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(extractor="offline")
    ns = _ns()

    def remember(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
        last = str(state["messages"][-1].content)
        if not last.endswith("?"):  # statements are remembered, questions answered
            store.put(ns, str(uuid.uuid4()), {"content": last, "speaker": "Ann"})
        return {}

    def respond(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
        hits = store.search(ns, query=str(state["messages"][-1].content), limit=1)
        return {"messages": [AIMessage(hits[0].value["content"] if hits else "no idea")]}

    g = StateGraph(MessagesState)
    g.add_node("remember", remember)
    g.add_node("respond", respond)
    g.add_edge(START, "remember")
    g.add_edge("remember", "respond")
    g.add_edge("respond", END)
    graph = g.compile(store=KgmemStore(m))
    graph.invoke({"messages": [HumanMessage("I adopted a dog called Rex.")]})
    graph.invoke({"messages": [HumanMessage("I moved to Denver last March.")]})
    out = graph.invoke({"messages": [HumanMessage("Where did I move to?")]})
    assert out["messages"][-1].content == "I moved to Denver last March."
    group = ":".join(ns)
    assert "Denver" in [f.object for f in m.facts(predicate="LIVES_IN", group=group)]


def test_a_scripted_model_uses_the_tools_through_tool_node(make_memory) -> None:  # type: ignore[no-untyped-def]
    m = make_memory(extractor="offline")
    group = "t" + uuid.uuid4().hex[:10]
    tools = kgmem_tools(m, group, speaker="Ann")
    script: list[AIMessage] = []

    def model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [script.pop(0)]}

    def route(state: MessagesState) -> str:
        return "tools" if state["messages"][-1].tool_calls else END  # type: ignore[attr-defined]

    g = StateGraph(MessagesState)
    g.add_node("model", model)
    g.add_node("tools", ToolNode(tools))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", route, ["tools", END])
    g.add_edge("tools", "model")
    graph = g.compile()

    def call(name: str, args: dict[str, Any]) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": uuid.uuid4().hex}])

    script += [call("remember", {"content": "I work at Acme since 2020.",
                                 "reference_time": "2023-05-01"}), AIMessage("noted")]
    out = graph.invoke({"messages": [HumanMessage("I work at Acme since 2020.")]})
    told = [x for x in out["messages"] if isinstance(x, ToolMessage)][0].content
    assert "Ann WORKS_AT Acme [2020, now)" in told
    fid = m.facts("Ann", "WORKS_AT", group=group)[0].fact_id
    script += [call("correct", {"fact_id": fid[:8], "object": "Initech"}),
               call("recall", {"query": "Where does Ann work?"}),
               call("recall", {"query": "Where does Ann work?", "known_at": "2024-01-01"}),
               call("forget", {"fact_id": "ffffffff"}), AIMessage("done")]
    out = graph.invoke({"messages": [HumanMessage("No, Initech.")]})
    said = [x.content for x in out["messages"] if isinstance(x, ToolMessage)]
    assert said[0].startswith("corrected") and "Initech" in said[0]
    assert "Ann WORKS_AT Initech" in said[1] and "WORKS_AT Acme" not in said[1]
    assert said[2] == "nothing relevant in memory" or "Initech" not in said[2]
    assert said[3].startswith("not_found: no fact 'ffffffff'")  # the model is told, no crash


def test_adapters_take_a_path_an_async_memory_or_the_configured_memory(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kgmem import AsyncMemory, Memory
    from kgmem.integrations.tools import MemoryTools

    by_path = KgmemStore(str(tmp_path / "a"), extract=False)
    by_path.put(("n",), "k", {"content": "hello"})
    assert by_path.get(("n",), "k").value == {"content": "hello"}  # type: ignore[union-attr]
    m = Memory(tmp_path / "b", extractor=None)
    assert MemoryTools(AsyncMemory(memory=m)).memory is m
    monkeypatch.setenv("KGMEM_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("KGMEM_EXTRACTOR", "none")
    tools = kgmem_tools(group="g")  # the configured memory, as the CLI and servers open it
    assert [t.name for t in tools][0] == "remember"
    tools[0].invoke({"content": "I like tea.", "reference_time": "2024-01-01"})
    assert (tmp_path / "c").is_dir()


def test_puts_at_one_instant_keep_their_order(make_memory) -> None:  # type: ignore[no-untyped-def]
    """An injected clock that does not move between puts (a replay, a test): each put, and a
    delete, still replaces what the key held before it."""
    store = KgmemStore(make_memory(clock=ManualClock()), extract=False)
    ns = _ns()
    store.put(ns, "pref", {"content": "likes tea"})
    store.put(ns, "pref", {"content": "likes coffee"})
    got = store.get(ns, "pref")
    assert got is not None and got.value == {"content": "likes coffee"}
    store.delete(ns, "pref")
    assert store.get(ns, "pref") is None
    store.put(ns, "pref", {"content": "likes cocoa"})
    got = store.get(ns, "pref")
    assert got is not None and got.value == {"content": "likes cocoa"}
