#!/usr/bin/env bash
# Installs schedkit's Debian 12 dependencies and builds it into build/.
# Idempotent and non-interactive; run it again after pulling changes.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config libgtest-dev libgmock-dev
          libbenchmark-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev liblemon-dev
          coinor-libclp-dev libxgboost-dev libeigen3-dev
          libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libsqlite3-dev
          pybind11-dev python3-dev python3-pybind11 python3-torch
          slurmctld slurmd slurm-client
          python3-matplotlib python3-numpy python3-scipy chromium
          python3-sklearn)  # schedkit_adapt: the digits data (docs/adapt.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
