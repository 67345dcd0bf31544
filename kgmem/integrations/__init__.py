"""kgmem inside agent frameworks (docs/integrations.md), each adapter a module behind its
extra, importing its framework only when used:

* :mod:`kgmem.integrations.langgraph` (``kgmem[langgraph]``): ``KgmemStore``, a LangGraph
  ``BaseStore``, and LangChain tools;
* :mod:`kgmem.integrations.openai_agents` (``kgmem[openai-agents]``): ``KgmemSession``, an
  Agents SDK ``Session``, and function tools;
* :mod:`kgmem.integrations.pydantic_ai` (``kgmem[pydantic-ai]``): a Pydantic AI toolset.

The tools are the same four everywhere (:mod:`kgmem.integrations.tools`): remember, recall
(as of a date, as known then), correct, forget.
"""
