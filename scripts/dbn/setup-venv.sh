#!/usr/bin/env bash
# Creates the Python environment that reads DBN files back with Databento's own decoder
# (databento-dbn), used by the DBN export test and by scripts/dbn/read_dbn.py.
# Idempotent: a no-op when the venv already holds the pinned versions.
set -euo pipefail

DBN_VERSION="0.72.0"
VENV="${MDFANOUT_DBN_VENV:-${HOME}/.cache/mdfanout/dbn-venv}"
PYTHON="${PYTHON:-python3}"

if [ -x "${VENV}/bin/python" ] && \
    "${VENV}/bin/python" -c "import databento_dbn, pandas, sys, importlib.metadata as m; sys.exit(0 if m.version('databento-dbn') == '${DBN_VERSION}' else 1)" \
    2>/dev/null
then
    exit 0
fi

echo "dbn-tools: creating ${VENV} (databento-dbn==${DBN_VERSION}, pandas)"
mkdir -p "$(dirname "${VENV}")"
"${PYTHON}" -m venv "${VENV}"
"${VENV}/bin/python" -m pip install --quiet --upgrade pip
"${VENV}/bin/python" -m pip install --quiet "databento-dbn==${DBN_VERSION}" pandas
"${VENV}/bin/python" -c "import importlib.metadata as m; print('dbn-tools: databento-dbn', m.version('databento-dbn'), 'pandas', m.version('pandas'))"
