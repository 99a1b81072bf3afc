#!/usr/bin/env bash
# Adaptive schedules (issue 16, decision 0028): the issue's workload on a
# simulated clock, driven by the poller's real CheckSchedule. 1000 pages
# added together; 90 % never change, 10 % change every 300 s at random
# phases; interval 60 s, max_interval_seconds 3600 s against the same
# pages with max = interval (fixed). Prints checks of each and the
# detection delay of the changing pages, for the first day (from the moment
# the pages are added) and the second (steady state), and fails unless
# checks fall at least 5x with every change still seen within the interval.
# Needs no database and takes seconds (ScheduleSimulationTests).
# Usage: bench/schedule.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
swift test --skip-build --filter ScheduleSimulationTests 2>&1 | grep -E "schedule simulation|fixed:|adaptive:|checks fall|passed|failed"
