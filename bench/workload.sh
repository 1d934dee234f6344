#!/bin/sh
# Runs one of duplex's real-program workloads (see bench/README.md).
#   bench/workload.sh NAME --print-classpath | --print-app-jars | --prepare
#   bench/workload.sh NAME --run [--cp-override JARS] [--jvm-opts "..."] [--out FILE]
#   bench/workload.sh --list
exec python3 "$(dirname "$0")/workload.py" "$@"
