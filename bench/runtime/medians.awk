# Lines "VARIANT TIME_MS" in, one line per variant out: its median and its ratio to the first
# variant of `order` (a space-separated list, given with -v order=...), in that order.
{ t[$1] = t[$1] " " $2 }
END {
  n = split(order, names, " ")
  for (k = 1; k <= n; k++) {
    v = names[k]; c = split(t[v], xs, " ")
    for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (xs[b] < xs[a]) { s = xs[a]; xs[a] = xs[b]; xs[b] = s }
    med[v] = xs[int((c + 1) / 2)]
  }
  for (k = 1; k <= n; k++) printf "%-6s %8.3f ms  %.2fx\n", names[k], med[names[k]], med[names[k]] / med[names[1]]
}
