#!/usr/bin/env bash
# Installs the Debian packages provesim builds against, when any is missing. As root it
# runs apt-get; otherwise it prints the exact apt line and stops (exit 1).
#
#   bash scripts/deps.sh              what the build and the test suite need
#   bash scripts/deps.sh mpi browser  also Open MPI (the PROVESIM_MPI=ON build and its
#                                     test) and headless Chromium (the report's browser
#                                     test); CI installs both, the quick start neither
#   bash scripts/deps.sh bench        SimGrid, for bench/'s comparison (not CI)
set -euo pipefail
pkgs=(build-essential cmake pkg-config libgsl-dev libyaml-dev libcjson-dev check python3 help2man zlib1g-dev)
for group in "$@"; do
  case "$group" in
    mpi) pkgs+=(libopenmpi-dev openmpi-bin) ;;
    browser) pkgs+=(chromium) ;;
    bench) pkgs+=(libsimgrid-dev g++) ;;
    *) echo "deps.sh: unknown group '$group' (expected mpi, browser or bench)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "provesim needs these Debian packages: ${missing[*]}" >&2
  echo "install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
