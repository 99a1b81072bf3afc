#!/usr/bin/env bash
# Formats Sources, Tests and Package.swift in place with the checked-in
# .swift-format: the files `make lint` holds to it. Afterwards `make lint`
# passes unless a rule that cannot rewrite code finds something.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${SWIFT:-swift}" format format --in-place --recursive --parallel Sources Tests Package.swift
