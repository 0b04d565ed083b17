#!/usr/bin/env bash
# Builds the package's wheel offline into target/wheel/, from a copy of the sources (so the build
# leaves no build/ or *.egg-info in the checkout). Needs a Python 3 with pip, setuptools and wheel
# (Debian: python3-pip, python3-setuptools, python3-wheel); PYTHON picks one, else the first of
# python3 and /usr/bin/python3 that has them. Run by the Maven build; usable by hand.
set -euo pipefail
cd "$(dirname "$0")"

python=""
for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 \
      && "$candidate" -c 'import importlib.util as u, sys; sys.exit(not all(u.find_spec(m) for m in ("pip", "setuptools", "wheel")))' >/dev/null 2>&1; then
    python="$candidate"
    break
  fi
done
if [ -z "$python" ]; then
  echo "build-wheel: no Python 3 with pip, setuptools and wheel found (tried: ${PYTHON:-} python3 /usr/bin/python3);" \
       "install python3-setuptools and python3-wheel, or set PYTHON" >&2
  exit 1
fi

rm -rf target/wheel-src target/wheel
mkdir -p target/wheel-src target/wheel
cp -r pyproject.toml README.md CHANGELOG.md src target/wheel-src/
find target/wheel-src \( -name __pycache__ -o -name "*.egg-info" \) -prune -exec rm -rf {} +
"$python" -m pip wheel --quiet --no-deps --no-index --no-build-isolation -w target/wheel target/wheel-src
ls target/wheel/*.whl
