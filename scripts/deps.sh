#!/usr/bin/env bash
# Installs the Debian packages provesim builds against, when any is missing. As root it
# runs apt-get; otherwise it prints the exact apt line and stops (exit 1).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libgsl-dev libyaml-dev libcjson-dev check python3 help2man)
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
