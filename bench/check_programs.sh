#!/bin/sh
# Rewrites, verifies and runs the real programs of bench/ in each mode (see check_programs.py).
#   bench/check_programs.sh [--quick] [--programs h2,rhino] [--intervals 1,1000,0] [MODES...]
exec python3 "$(dirname "$0")/check_programs.py" "$@"
