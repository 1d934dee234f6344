package duplex.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Exact per-key event counts for String keys (field reads and writes, custom events): a {@link
 * KeyTable} whose entries hold a {@code LongAdder}, so counts stay exact under any number of
 * threads.
 */
final class KeyCounts extends KeyTable<KeyCounts.Counter> implements CountStore {
  static final class Counter extends KeyTable.Entry {
    final LongAdder count = new LongAdder();

    Counter(String key, int hash) { super(key, hash); }
  }

  @Override
  Counter create(String key, int hash) { return new Counter(key, hash); }

  @Override
  public void scale(CountScale s) {
    for (Counter c : all()) s.apply(c.count);
  }

  /** A snapshot of the counters with a non-zero count. */
  List<Counter> entries() {
    List<Counter> list = new ArrayList<Counter>();
    for (Counter c : all()) {
      if (c.count.sum() != 0) list.add(c);
    }
    return list;
  }
}
