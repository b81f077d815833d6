#!/usr/bin/env bash
# Build the framework conformance venvs, one per requirements file, cached outside the checkout:
# ${GSAR_FRAMEWORK_VENVS:-$HOME/.cache/gsar-otel/frameworks}/<name>-<first 12 hex of the file's sha256>.
# A venv is built once per requirements content (a changed pin makes a new one); pip's cache is on.
# Usage: venvs.sh [name ...]   (default: every requirements/*.txt)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${GSAR_FRAMEWORK_VENVS:-$HOME/.cache/gsar-otel/frameworks}"
python="${PYTHON:-python3}"
mkdir -p "$root"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for file in "$here"/requirements/*.txt; do names+=("$(basename "$file" .txt)"); done
fi
status=0
for name in "${names[@]}"; do
  file="$here/requirements/$name.txt"
  sha="$(sha256sum "$file" | cut -c1-12)"
  venv="$root/$name-$sha"
  [ -f "$venv/.installed" ] && continue
  echo "building the $name framework venv in $venv" >&2
  rm -rf "$venv"
  if "$python" -m venv "$venv" \
      && "$venv/bin/python" -m pip install -q --upgrade pip \
      && "$venv/bin/python" -m pip install -q -r "$file"; then
    "$venv/bin/python" -m pip freeze > "$venv/freeze.txt"
    touch "$venv/.installed"
  else
    echo "could not build the $name framework venv" >&2
    status=1
  fi
done
exit $status
