#!/bin/sh
# Scenario 1: an idle host gives no finding at warning or above.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_idle "needs root"; exit 0; }
scen_run "$TMPD/idle" && true
scen_record idle "$TMPD/idle"
expect_no_warning scenario_idle_no_warning "$TMPD/idle"
