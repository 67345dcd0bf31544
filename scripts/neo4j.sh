#!/usr/bin/env bash
# Run a real Neo4j Community 5.26 server without Docker.
#
# Neo4j publishes its server as jars on Maven Central (no tarball there), so this script
# assembles a NEO4J_HOME from the runtime dependency closure of org.neo4j:neo4j (+ the
# Neo4j Browser jar) with `mvn`, writes a small local-only config and drives Neo4j's own
# bootloader (org.neo4j.server.startup.Neo4jCommand, what bin/neo4j runs).
#
# Usage: scripts/neo4j.sh <command>
#   fetch          download jars into $KGMEM_NEO4J_HOME/lib and APOC core into plugins/
#                  (idempotent, reuses ~/.m2)
#   start          fetch if needed, write conf, start in the background, wait until ready
#   stop           stop the server (SIGTERM via the bootloader; waits)
#   restart        stop + start
#   status         exit 0 if the server process is running (3 otherwise)
#   wait           wait until Bolt answers and GET http://127.0.0.1:$HTTP/ returns 200
#   check          smoke checks: cosine query, 3-dim vector index ONLINE, /browser/ = 200
#   clean-data     delete data/ (server must be stopped); logs are kept
#   logs           tail the server log
#   env            print the KGMEM_NEO4J_* client variables for this server
#   latest-version print the newest 5.26.x patch that Maven Central serves
#   memory [RAM]   neo4j-admin server memory-recommendation for this home's store (RAM:
#                  the memory to plan for, default the machine's); the server may run
#   favorites [ZIP] write the ready queries of docs/neo4j-browser.md as a zip of .cypher files
#                  (default kgmem-browser-favorites.zip): drop it onto the Browser window and
#                  they are favorites in a folder "kgmem"
#
# Environment (all optional):
#   KGMEM_NEO4J_VERSION        Neo4j version (default below; must be 5.26.x for Java 17)
#   KGMEM_NEO4J_BROWSER_VERSION  org.neo4j.client:neo4j-browser version (default 5.24.0)
#   KGMEM_NEO4J_APOC_VERSION   APOC core plugin (org.neo4j.procedure:apoc-core, classifier core;
#                              default 5.26.0, the newest 5.26 on Maven Central; "off": none).
#                              The Browser's ready queries draw virtual graphs with it
#                              (docs/neo4j-browser.md); kgmem itself never calls APOC.
#   KGMEM_NEO4J_HOME           home dir (default $REPO/.neo4j/$KGMEM_NEO4J_VERSION)
#   KGMEM_NEO4J_BOLT_PORT      default 7687      KGMEM_NEO4J_HTTP_PORT  default 7474
#   KGMEM_NEO4J_PASSWORD       if set: auth is enabled and this becomes the initial password
#                              of user neo4j (>= 8 chars; applied only to a fresh data dir).
#                              Unset (default): auth disabled, any credentials are accepted.
#   KGMEM_NEO4J_START_TIMEOUT  seconds to wait for readiness (default 180)
#   KGMEM_NEO4J_HEAP           JVM heap max (default 1g)
#   KGMEM_NEO4J_HEAP_INITIAL   JVM heap initial size (default 512m; = KGMEM_NEO4J_HEAP if that is set)
#   KGMEM_NEO4J_PAGECACHE      page cache (default 256m). Why these defaults, measured on
#                              5.26.30 (2026-12-02): a store of 20.8k facts (25.6k versions,
#                              68.5k nodes, with kgmem's indexes) takes 73 MB on disk, ~3.5 KB
#                              per fact, so the test suite's graphs fit 256m; the heap held
#                              113 MB of its 1g after the Browser and import tests. For a big
#                              store size the page cache to the store files so reads never
#                              fault: 1M facts ~3.5 GB without vectors (4g), plus 1.5 KB per
#                              384-dim float32 vector and its index (not measured); heap 2g. `memory` below asks Neo4j's own
#                              neo4j-admin for a recommendation from the store as it is.
#   KGMEM_NEO4J_JAVA_HOME      JDK to run Neo4j with (default: JAVA_HOME, else `java` on PATH;
#                              Neo4j 5.26 supports Java 17 and 21)
#   KGMEM_PYTHON               python with the `neo4j` driver, for `check`
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NEO4J_VERSION="${KGMEM_NEO4J_VERSION:-5.26.30}"
BROWSER_VERSION="${KGMEM_NEO4J_BROWSER_VERSION:-5.24.0}"
APOC_VERSION="${KGMEM_NEO4J_APOC_VERSION:-5.26.0}"
DEP_PLUGIN_VERSION="3.8.1"
H="$(realpath -m "${KGMEM_NEO4J_HOME:-$REPO/.neo4j/$NEO4J_VERSION}")"
BOLT_PORT="${KGMEM_NEO4J_BOLT_PORT:-7687}"
HTTP_PORT="${KGMEM_NEO4J_HTTP_PORT:-7474}"
HOST="127.0.0.1"
START_TIMEOUT="${KGMEM_NEO4J_START_TIMEOUT:-180}"
HEAP_MAX="${KGMEM_NEO4J_HEAP:-1g}"
PAGECACHE="${KGMEM_NEO4J_PAGECACHE:-256m}"
if [[ -n "${KGMEM_NEO4J_HEAP:-}" ]]; then HEAP_INITIAL="${KGMEM_NEO4J_HEAP_INITIAL:-$HEAP_MAX}"
else HEAP_INITIAL="${KGMEM_NEO4J_HEAP_INITIAL:-512m}"; fi
for _mem in "$HEAP_MAX" "$HEAP_INITIAL" "$PAGECACHE"; do
  [[ "$_mem" =~ ^[0-9]+[kKmMgG]?$ ]] || { echo "[neo4j.sh] bad memory size '$_mem' (e.g. 512m, 4g)" >&2; exit 2; }
done
MARKER="$H/lib/.kgmem-fetch-complete"
MARKER_CONTENT="neo4j=$NEO4J_VERSION browser=$BROWSER_VERSION"
CONF_TAG="# generated by scripts/neo4j.sh"
PID_FILE="$H/run/neo4j.pid"

case "$H" in
  /|"$REPO"|"$HOME"|/usr|/usr/*|/etc|/etc/*) echo "[neo4j.sh] refusing NEO4J home '$H'" >&2; exit 1 ;;
esac

log() { printf '[neo4j.sh] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# --- java -------------------------------------------------------------------------------
find_java() {
  local jh="${KGMEM_NEO4J_JAVA_HOME:-${JAVA_HOME:-}}"
  if [[ -n "$jh" && -x "$jh/bin/java" ]]; then
    JAVA="$jh/bin/java"
  else
    JAVA="$(command -v java || true)"
    [[ -n "$JAVA" ]] || die "no java found: install a JDK 17 (apt-get install openjdk-17-jre-headless)"
  fi
  local major
  major="$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  case "$major" in
    17|21) ;;
    *)
      # Neo4j 5.26 runs on 17/21 only; look for a 17/21 JDK before giving up.
      local alt
      for alt in /usr/lib/jvm/java-17-openjdk-* /usr/lib/jvm/java-21-openjdk-* /usr/lib/jvm/temurin-17-* /usr/lib/jvm/temurin-21-*; do
        if [[ -x "$alt/bin/java" ]]; then JAVA="$alt/bin/java"; major=""; break; fi
      done
      [[ -z "$major" ]] || log "WARNING: $JAVA is Java $major; Neo4j $NEO4J_VERSION supports Java 17 and 21"
      ;;
  esac
  # The bootloader forks the server with $JAVA_HOME/bin/java when JAVA_HOME is set.
  export JAVA_HOME
  JAVA_HOME="$(cd "$(dirname "$(readlink -f "$JAVA")")/.." && pwd)"
}

# --- fetch ------------------------------------------------------------------------------
write_pom() {
  local pom="$1"
  cat > "$pom" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- throwaway pom generated by scripts/neo4j.sh: lists what the Neo4j tarball's lib/ holds -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kgmem.local</groupId>
  <artifactId>neo4j-server-assembly</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j</groupId>
      <artifactId>neo4j</artifactId>
      <version>$NEO4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.neo4j.client</groupId>
      <artifactId>neo4j-browser</artifactId>
      <version>$BROWSER_VERSION</version>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>$DEP_PLUGIN_VERSION</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
EOF
}

cmd_fetch() {
  if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$MARKER_CONTENT" ]]; then
    log "lib/ complete ($MARKER_CONTENT) in $H"
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  if is_running; then die "cannot replace lib/ while the server runs: scripts/neo4j.sh stop first"; fi
  mkdir -p "$H"
  local t0=$SECONDS tmp="$H/lib.fetching"
  rm -rf "$tmp"
  write_pom "$H/fetch-pom.xml"
  log "fetching Neo4j $NEO4J_VERSION + browser $BROWSER_VERSION from Maven Central (cached in ~/.m2)..."
  if ! mvn -B -q -f "$H/fetch-pom.xml" \
        "org.apache.maven.plugins:maven-dependency-plugin:$DEP_PLUGIN_VERSION:copy-dependencies" \
        -DincludeScope=runtime -DoutputDirectory="$tmp" >"$H/fetch.log" 2>&1; then
    tail -30 "$H/fetch.log" >&2
    rm -rf "$tmp"
    die "mvn failed (full log: $H/fetch.log)"
  fi
  [[ -f "$tmp/neo4j-$NEO4J_VERSION.jar" ]] || die "neo4j-$NEO4J_VERSION.jar missing after mvn"
  if [[ -f "$MARKER" ]]; then
    log "replacing lib/ ($(cat "$MARKER")); note: a store written by a newer Neo4j cannot be opened by an older one"
  fi
  # Swap in atomically-ish: never leave two versions' jars in lib/.
  rm -rf "${H:?}/lib"
  mv "$tmp" "$H/lib"
  echo "$MARKER_CONTENT" > "$MARKER"
  rm -rf "$H/target"
  log "fetched $(find "$H/lib" -name '*.jar' | wc -l) jars, $(du -sh "$H/lib" | cut -f1), in $((SECONDS - t0)) s"
}

# APOC core goes to plugins/ (not lib/), so it can be added to a home whose server runs: it
# loads at the next start. Only apoc.create.vNode/vRelationship and apoc.map are used (ready
# queries of docs/neo4j-browser.md): virtual nodes have negative ids, so the Browser's
# "connect result nodes" finds no stored relationship between them.
cmd_plugins() {
  [[ "$APOC_VERSION" == off ]] && return 0
  local jar="apoc-core-$APOC_VERSION-core.jar"
  [[ -f "$H/plugins/$jar" ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
  mkdir -p "$H/plugins"
  local tmp="$H/plugins.fetching"
  rm -rf "$tmp"
  log "fetching APOC core $APOC_VERSION from Maven Central (cached in ~/.m2)..."
  if ! mvn -B -q "org.apache.maven.plugins:maven-dependency-plugin:$DEP_PLUGIN_VERSION:copy" \
        -Dartifact="org.neo4j.procedure:apoc-core:$APOC_VERSION:jar:core" \
        -DoutputDirectory="$tmp" >"$H/fetch-apoc.log" 2>&1; then
    tail -20 "$H/fetch-apoc.log" >&2
    rm -rf "$tmp"
    die "mvn could not fetch APOC core $APOC_VERSION (KGMEM_NEO4J_APOC_VERSION=off skips it)"
  fi
  # APOC 5.26.0's core jar bundles commons-lang3/-text of 2020, which shadow the 3.18 that
  # Neo4j 5.26.30's own commons-configuration2 2.15 calls (NoSuchMethodError
  # ObjectUtils.getIfNull at startup): drop the bundled copies, lib/ has newer ones.
  python3 - "$tmp/$jar" <<'PY' || die "could not strip the bundled commons classes from $jar"
import shutil, sys, zipfile
src = sys.argv[1]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(src + ".new", "w", zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        if not item.filename.startswith(("org/apache/commons/lang3/", "org/apache/commons/text/")):
            zout.writestr(item, zin.read(item.filename))
shutil.move(src + ".new", src)
PY
  rm -f "$H"/plugins/apoc-core-*.jar  # never two APOC versions
  mv "$tmp/$jar" "$H/plugins/$jar"
  rm -rf "$tmp"
  if is_running; then log "APOC $APOC_VERSION installed: it loads at the next restart"
  else log "APOC $APOC_VERSION installed in plugins/"; fi
}

cmd_latest_version() {
  command -v mvn >/dev/null || die "mvn not found"
  local d
  d="$(mktemp -d)"
  cat > "$d/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>x</groupId><artifactId>v</artifactId><version>1</version><packaging>pom</packaging>
<dependencies><dependency><groupId>org.neo4j</groupId><artifactId>neo4j</artifactId>
<version>[5.26.0,5.27.0)</version><type>pom</type></dependency></dependencies></project>
EOF
  mvn -B -U -f "$d/pom.xml" \
    "org.apache.maven.plugins:maven-dependency-plugin:$DEP_PLUGIN_VERSION:list" \
    -DexcludeTransitive=true 2>/dev/null | sed -n 's/.*org\.neo4j:neo4j:pom:\([0-9.]*\).*/\1/p' | head -1
  rm -rf "$d"
}

# --- config -----------------------------------------------------------------------------
auth_enabled() { [[ -n "${KGMEM_NEO4J_PASSWORD:-}" ]]; }

write_conf() {
  mkdir -p "$H"/{conf,plugins,data,logs,run,import}
  local conf="$H/conf/neo4j.conf"
  if [[ -f "$conf" ]] && ! head -1 "$conf" | grep -qF "$CONF_TAG"; then
    log "conf/neo4j.conf was edited by hand (no '$CONF_TAG' header): leaving it alone"
    return 0
  fi
  local auth=false
  auth_enabled && auth=true
  cat > "$conf" <<EOF
$CONF_TAG on every start; delete this first line to keep hand edits.
# Neo4j $NEO4J_VERSION, local-only, small-memory dev/CI config (5.x setting names).

# Network: loopback only (127.0.0.1, not localhost, which may resolve to IPv6 first).
server.default_listen_address=$HOST
server.default_advertised_address=$HOST
server.bolt.enabled=true
server.bolt.listen_address=$HOST:$BOLT_PORT
server.bolt.advertised_address=$HOST:$BOLT_PORT
server.bolt.tls_level=DISABLED
server.http.enabled=true
server.http.listen_address=$HOST:$HTTP_PORT
server.http.advertised_address=$HOST:$HTTP_PORT
server.https.enabled=false

# Auth: disabled unless KGMEM_NEO4J_PASSWORD is set when running scripts/neo4j.sh start.
dbms.security.auth_enabled=$auth

# Memory: without these Neo4j takes 1/4 of RAM for heap plus a large page cache.
# KGMEM_NEO4J_HEAP / KGMEM_NEO4J_HEAP_INITIAL / KGMEM_NEO4J_PAGECACHE override them.
server.memory.heap.initial_size=$HEAP_INITIAL
server.memory.heap.max_size=$HEAP_MAX
server.memory.pagecache.size=$PAGECACHE

dbms.usage_report.enabled=false

# Transaction logs: no 256 MB preallocation per database (else data/ starts at ~520 MB).
db.tx_log.preallocate=false
db.tx_log.rotation.size=64M
db.tx_log.rotation.retention_policy=1 days

# Directories (relative to NEO4J_HOME)
server.directories.data=data
server.directories.logs=logs
server.directories.plugins=plugins
server.directories.run=run
server.directories.import=import
server.directories.lib=lib

# JVM flags of the shipped 5.26 neo4j.conf.
server.jvm.additional=-XX:+UseG1GC
server.jvm.additional=-XX:-OmitStackTraceInFastThrow
server.jvm.additional=-XX:+AlwaysPreTouch
server.jvm.additional=-XX:+UnlockExperimentalVMOptions
server.jvm.additional=-XX:+TrustFinalNonStaticFields
server.jvm.additional=-XX:+DisableExplicitGC
server.jvm.additional=-Djdk.nio.maxCachedBufferSize=1024
server.jvm.additional=-Dio.netty.tryReflectionSetAccessible=true
server.jvm.additional=-Djdk.tls.ephemeralDHKeySize=2048
server.jvm.additional=-Djdk.tls.rejectClientInitiatedRenegotiation=true
server.jvm.additional=-XX:FlightRecorderOptions=stackdepth=256
server.jvm.additional=-XX:+UnlockDiagnosticVMOptions
server.jvm.additional=-XX:+DebugNonSafepoints
server.jvm.additional=--add-opens=java.base/java.nio=ALL-UNNAMED
server.jvm.additional=--add-opens=java.base/java.io=ALL-UNNAMED
server.jvm.additional=--add-opens=java.base/sun.nio.ch=ALL-UNNAMED
server.jvm.additional=--enable-native-access=ALL-UNNAMED
server.jvm.additional=-Dlog4j2.disable.jmx=true
server.jvm.additional=-Dlog4j.layout.jsonTemplate.maxStringLength=32768
EOF
  if [[ "$NEO4J_VERSION" == 5.26.* ]]; then
    # Unsupported internal settings (verified on 5.26.x only; unknown keys are fatal, hence the
    # version guard): without them Bolt shutdown idles 2 x 5 s, so `stop` takes ~15 s, not ~4 s.
    cat >> "$conf" <<EOF

# Fast Bolt shutdown for dev/CI (internal settings, 5.26.x).
internal.dbms.bolt.netty_server_shutdown_quiet_period=0
internal.dbms.bolt.netty_server_shutdown_timeout=1s
internal.server.bolt.thread_pool_shutdown_wait_time=1s
EOF
  fi
}

# --- process helpers ----------------------------------------------------------------------
read_pid() { if [[ -f "$PID_FILE" ]]; then tr -dc '0-9' < "$PID_FILE"; fi; }

# Running = pid file names a live process that is a Neo4j server of THIS home.
is_running() {
  local pid
  pid="$(read_pid)"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local cmdline
  cmdline="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmdline" == *EntryPoint* && "$cmdline" == *"$H"* ]]
}

clear_stale_pid() {
  if [[ -f "$PID_FILE" ]] && ! is_running; then
    log "removing stale pid file $PID_FILE (pid $(read_pid) is not a Neo4j server of this home)"
    rm -f "$PID_FILE"
  fi
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

http_root_ok() {
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://$HOST:$HTTP_PORT/" || true)" == 200 ]]
}

# Run one of Neo4j's launchers the way bin/neo4j and bin/neo4j-admin do. The bootloader
# (Neo4jCommand) applies the heap and every server.jvm.additional line from conf/neo4j.conf
# and forks org.neo4j.server.CommunityEntryPoint; JAVA_OPTS/HEAP_SIZE would override both.
neo4j_java() {
  local main="$1"; shift
  # shellcheck disable=SC2030  # the env changes are meant to stay inside this subshell
  ( unset JAVA_OPTS HEAP_SIZE
    # Neo4j warns below 40000 open files; raise the soft limit as far as allowed.
    ulimit -n 40000 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    export NEO4J_HOME="$H" NEO4J_CONF="$H/conf"
    cd "$H"
    "$JAVA" -Xmx128m -cp "$H/lib/*" -Dbasedir="$H" "$main" "$@" )
}
bootloader() { neo4j_java org.neo4j.server.startup.Neo4jCommand "$@"; }
neo4j_admin() { neo4j_java org.neo4j.server.startup.Neo4jAdminCommand "$@"; }

# --- commands -----------------------------------------------------------------------------
cmd_wait() {
  local t0=$SECONDS last=-1 bolt=no http=no managed=no
  # With a pid file we watch our process; without one (e.g. a server run by Docker) just poll.
  [[ -f "$PID_FILE" ]] && managed=yes
  log "waiting for bolt://$HOST:$BOLT_PORT and http://$HOST:$HTTP_PORT/ (timeout ${START_TIMEOUT}s)"
  while :; do
    bolt=no; http=no
    port_open "$BOLT_PORT" && bolt=yes
    [[ $bolt == yes ]] && http_root_ok && http=yes
    if [[ $bolt == yes && $http == yes ]]; then
      log "ready after $((SECONDS - t0)) s: bolt://$HOST:$BOLT_PORT  http://$HOST:$HTTP_PORT/browser/"
      return 0
    fi
    if [[ $managed == yes ]] && ! is_running; then
      log "server process is not running; last log lines:"
      tail -40 "$H/logs/neo4j.log" >&2 2>/dev/null || true
      return 1
    fi
    if (( SECONDS - t0 >= START_TIMEOUT )); then
      log "timed out after ${START_TIMEOUT}s (bolt=$bolt http=$http); last log lines:"
      tail -40 "$H/logs/neo4j.log" >&2 2>/dev/null || true
      return 1
    fi
    if (( (SECONDS - t0) / 5 != last )); then
      last=$(( (SECONDS - t0) / 5 ))
      log "  ... $((SECONDS - t0)) s (bolt=$bolt http=$http)"
    fi
    sleep 1
  done
}

cmd_start() {
  unset JAVA_OPTS HEAP_SIZE
  find_java
  cmd_fetch
  cmd_plugins
  write_conf
  clear_stale_pid
  if is_running; then
    log "already running (pid $(read_pid))"
    cmd_wait
    return
  fi
  local p
  for p in "$BOLT_PORT" "$HTTP_PORT"; do
    port_open "$p" && die "port $HOST:$p is already in use by another process (set KGMEM_NEO4J_BOLT_PORT/KGMEM_NEO4J_HTTP_PORT)"
  done
  if auth_enabled && [[ ! -d "$H/data/databases/system" ]]; then
    (( ${#KGMEM_NEO4J_PASSWORD} >= 8 )) || die "KGMEM_NEO4J_PASSWORD must have at least 8 characters"
    log "setting the initial password of user neo4j (fresh data dir)"
    neo4j_admin dbms set-initial-password "$KGMEM_NEO4J_PASSWORD" >/dev/null
  elif auth_enabled; then
    log "note: data/ already initialised; KGMEM_NEO4J_PASSWORD is not re-applied (clean-data to reset)"
  fi
  log "starting Neo4j $NEO4J_VERSION ($JAVA_HOME) in $H"
  local t0=$SECONDS
  if ! bootloader start >"$H/logs/bootloader.out" 2>&1; then
    cat "$H/logs/bootloader.out" >&2
    tail -40 "$H/logs/neo4j.log" >&2 2>/dev/null || true
    die "bootloader start failed"
  fi
  sed 's/^/[neo4j] /' "$H/logs/bootloader.out" >&2
  cmd_wait
  log "start took $((SECONDS - t0)) s"
}

cmd_stop() {
  find_java
  clear_stale_pid
  if ! is_running; then
    log "not running"
    return 0
  fi
  local pid
  pid="$(read_pid)"
  log "stopping Neo4j (pid $pid)"
  if ! bootloader stop >&2; then
    log "bootloader stop failed; sending SIGTERM"
    kill -TERM "$pid" 2>/dev/null || true
  fi
  for _ in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$PID_FILE"; log "stopped"; return 0; }
    sleep 1
  done
  log "still alive after 120 s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$PID_FILE"
}

cmd_status() {
  if is_running; then
    local ready="not ready"
    port_open "$BOLT_PORT" && http_root_ok && ready="ready"
    echo "running (pid $(read_pid), $ready) bolt://$HOST:$BOLT_PORT http://$HOST:$HTTP_PORT home=$H"
    return 0
  fi
  echo "not running (home=$H)"
  return 3
}

cmd_clean_data() {
  if is_running; then die "server is running: scripts/neo4j.sh stop first"; fi
  rm -rf "${H:?}/data"
  log "removed $H/data"
}

find_python() {
  local c
  for c in "${KGMEM_PYTHON:-}" "${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}" "$REPO/.venv/bin/python" "$REPO/venv/bin/python" python3; do
    [[ -n "$c" ]] || continue
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import neo4j' 2>/dev/null; then echo "$c"; return 0; fi
  done
  die "no python with the neo4j driver found (set KGMEM_PYTHON)"
}

cmd_check() {
  local py
  py="$(find_python)"
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' -I "http://$HOST:$HTTP_PORT/browser/" || true)"
  [[ "$code" == 200 ]] || die "HEAD http://$HOST:$HTTP_PORT/browser/ returned $code"
  log "HEAD /browser/ -> 200"
  KGMEM_NEO4J_URI="${KGMEM_NEO4J_URI:-bolt://$HOST:$BOLT_PORT}" \
  KGMEM_NEO4J_HTTP_PORT="$HTTP_PORT" \
    "$py" "$REPO/scripts/neo4j_check.py"
}

cmd_memory() {
  find_java
  local ram="${1:-$(awk '/MemTotal/ {printf "%dm", $2 / 1024}' /proc/meminfo)}"
  log "store: $(du -sh "$H/data/databases/neo4j" 2>/dev/null | cut -f1) in $H/data/databases/neo4j"
  neo4j_admin server memory-recommendation --memory="$ram" | grep -v '^#' | grep -v '^$'
}

cmd_favorites() {
  local out="${1:-kgmem-browser-favorites.zip}"
  python3 - "$REPO/docs/neo4j-browser.md" "$out" <<'PY' || die "could not write $out"
import re, sys, zipfile
doc, out = sys.argv[1], sys.argv[2]
blocks = re.findall(r"```cypher\n(.*?)```", open(doc, encoding="utf-8").read(), flags=re.S)
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for i, block in enumerate(blocks, 1):
        title = block.partition("\n")[0].lstrip("/ ").split(":")[0]
        name = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
        z.writestr(f"kgmem/{i:02d}-{name}.cypher", block)
print(f"{out}: {len(blocks)} ready queries (drop it onto the Browser window)")
PY
}

cmd_env() {
  echo "export KGMEM_NEO4J_URI=bolt://$HOST:$BOLT_PORT"
  echo "export KGMEM_NEO4J_USER=neo4j"
  if auth_enabled; then echo "export KGMEM_NEO4J_PASSWORD='<your password>'"; fi
  echo "export KGMEM_NEO4J_DATABASE=neo4j"
  echo "export KGMEM_NEO4J_HTTP_PORT=$HTTP_PORT"
}

case "${1:-}" in
  fetch) cmd_fetch; cmd_plugins ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  status) cmd_status ;;
  wait) cmd_wait ;;
  check) cmd_check ;;
  clean-data) cmd_clean_data ;;
  logs) tail -n "${2:-100}" "$H/logs/neo4j.log" ;;
  env) cmd_env ;;
  latest-version) cmd_latest_version ;;
  favorites) cmd_favorites "${2:-}" ;;
  memory) cmd_memory "${2:-}" ;;
  *) sed -n '2,54p' "$0" | sed 's/^# \{0,1\}//'; [[ -n "${1:-}" ]] && exit 2 || exit 0 ;;
esac
