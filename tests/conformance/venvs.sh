#!/usr/bin/env bash
# Build the framework conformance venvs, one per requirements file, cached outside the checkout:
# ${GSAR_FRAMEWORK_VENVS:-$HOME/.cache/gsar-otel/frameworks}/<name>-<first 12 hex of the file's sha256>.
# A venv is built once per requirements content (a changed pin makes a new one); pip's cache is on.
# The Vercel AI SDK agent (Node.js) gets the same treatment: vercel_agent/package.json installed
# with npm into $root/vercel-<sha of package.json>.
# Usage: venvs.sh [name ...]   (default: every requirements/*.txt, and vercel)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${GSAR_FRAMEWORK_VENVS:-$HOME/.cache/gsar-otel/frameworks}"
python="${PYTHON:-python3}"
mkdir -p "$root"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for file in "$here"/requirements/*.txt; do names+=("$(basename "$file" .txt)"); done
  names+=(vercel)
fi
status=0
for name in "${names[@]}"; do
  if [ "$name" = vercel ]; then
    sha="$(sha256sum "$here/vercel_agent/package.json" | cut -c1-12)"
    dir="$root/vercel-$sha"
    [ -f "$dir/.installed" ] && continue
    echo "installing the Vercel AI SDK agent's packages in $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir" && cp "$here/vercel_agent/package.json" "$dir/"
    if (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2); then
      touch "$dir/.installed"
    else
      echo "could not install the Vercel AI SDK agent's packages" >&2
      status=1
    fi
    continue
  fi
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
