package duplex.runtime;

/**
 * A store of exact event counts by key (field reads and writes, custom events, call edges, call
 * sites): what {@link Duplex#reset} clears and the end of a warm-up scales, listed once in {@link
 * Duplex#STORES}. The per-class counters ({@link ClassCounts}) are static and handled beside them.
 */
interface CountStore {
  /** Drops every count. */
  void clear();

  /** Scales every count in place (the end of a warm-up). */
  void scale(CountScale s);
}
