#!/usr/bin/env bash
# Assembles a Java 17 runtime base image offline from Debian's packages (no image registry needed)
# and prints its name. Cached: the root file system is kept as a tarball under /var/tmp, keyed by
# the package list, and the image by the same key, so a second run takes a second.
#   packaging/container/base.sh            -> localhost/fencegate-base:<key>
# Needs root, podman, debootstrap and the Debian mirror named in /etc/apt/sources.list.d/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/podman.env"

suite=bookworm
packages=openjdk-17-jre-headless,ca-certificates
key=$(printf '%s %s' "$suite" "$packages" | sha256sum | cut -c1-12)
image="localhost/fencegate-base:$key"
cache="/var/tmp/fencegate-base-$key.tar"

if pod image exists "$image"; then
  echo "$image"
  exit 0
fi
if [[ ! -s "$cache" ]]; then
  mirror=$( (cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list 2>/dev/null || true) \
    | sed -n 's/^URIs: *//p; s/^deb \(\[[^]]*\] \)\?\([^ ]*\) .*/\2/p' | grep -v security | head -n1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  root=$(mktemp -d /var/tmp/fencegate-base-root.XXXXXX)
  trap 'rm -rf "$root"' EXIT
  echo "base: debootstrap $suite from $mirror (about 2 minutes, once)" >&2
  debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" >&2
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -cf "$cache.part" .
  mv "$cache.part" "$cache"
fi
pod import "$cache" "$image" >/dev/null
echo "$image"
