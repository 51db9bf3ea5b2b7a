#!/usr/bin/env bash
# Set up the workbench on a fresh machine.
#   bash scripts/setup.sh                 Python packages (enough for the app, the CLI and most tests)
#   bash scripts/setup.sh --with-browser  also Debian's chromium for the real-browser test
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --disable-pip-version-check -q -r requirements.txt

if [[ " $* " == *" --with-browser "* ]]; then
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    fi
  fi
  chromium --version
fi
echo "set-up done: run the app with  streamlit run app.py"
