#!/usr/bin/env bash
# Set up the workbench on a fresh machine.
#   bash scripts/setup.sh                 Python packages (enough for the app, the CLI and most tests)
#   bash scripts/setup.sh --with-browser  also Debian's chromium for the real-browser test
#   bash scripts/setup.sh --with-postgres also Debian's postgresql (15 or later) for the PostgreSQL store
#                                          tests, which start a throwaway cluster of their own
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --disable-pip-version-check -q -r requirements.txt

apt_install() {
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  fi
}

if [[ " $* " == *" --with-browser "* ]]; then
  if ! command -v chromium >/dev/null 2>&1; then
    apt_install chromium
  fi
  chromium --version
fi

if [[ " $* " == *" --with-postgres "* ]]; then
  if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
    apt_install postgresql || echo "!!! postgresql could not be installed: the PostgreSQL store tests will be skipped" >&2
  fi
  ls /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null || true
fi
echo "set-up done: run the app with  streamlit run app.py"
