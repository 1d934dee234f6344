// A flag check as a branch in each small method (what duplex emits: `if (sampling != null &&
// samplingHere()) -> twin`) against the same decision taken by one shared method that throws a
// preallocated exception, caught in each small method (so that no site has a branch of its
// own that C2 could prune before the site's first sample). 16 small methods of each form are
// inlined into a hot switch; from round FROM on, every EVERY-th call sets the flag.
// docs/design/hotspot-costs.md, section 10. Arguments: b|t EVERY FROM
public class FlagThrow {
  static final class Sample extends RuntimeException {
    Sample() {
      super(null, null, false, false);
    }
  }

  static final Sample SAMPLE = new Sample();
  static Thread sampling;
  static int samples;

  static void flagCheck() {
    Thread t = sampling;
    if (t != null && t == Thread.currentThread()) throw SAMPLE;
  }

  static boolean samplingHere() {
    return sampling == Thread.currentThread();
  }

  static int twinB(int x) {
    samples++;
    return x * 3 + 1;
  }

  static int twinT(int x) {
    samples++;
    return x * 3 + 1;
  }
  static int b0(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 0;
  }

  static int t0(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 0;
  }

  static int b1(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 1;
  }

  static int t1(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 1;
  }

  static int b2(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 2;
  }

  static int t2(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 2;
  }

  static int b3(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 3;
  }

  static int t3(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 3;
  }

  static int b4(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 4;
  }

  static int t4(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 4;
  }

  static int b5(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 5;
  }

  static int t5(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 5;
  }

  static int b6(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 6;
  }

  static int t6(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 6;
  }

  static int b7(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 7;
  }

  static int t7(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 7;
  }

  static int b8(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 8;
  }

  static int t8(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 8;
  }

  static int b9(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 9;
  }

  static int t9(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 9;
  }

  static int b10(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 10;
  }

  static int t10(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 10;
  }

  static int b11(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 11;
  }

  static int t11(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 11;
  }

  static int b12(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 12;
  }

  static int t12(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 12;
  }

  static int b13(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 13;
  }

  static int t13(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 13;
  }

  static int b14(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 14;
  }

  static int t14(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 14;
  }

  static int b15(int x) {
    if (sampling != null && samplingHere()) return twinB(x);
    return x + 15;
  }

  static int t15(int x) {
    try {
      flagCheck();
    } catch (Sample e) {
      return twinT(x);
    }
    return x + 15;
  }

  static int callB(int x) {
    switch (x & 3) {
      case 0: return b0(x) + b1(x) + b2(x) + b3(x); case 1: return b4(x) + b5(x) + b6(x) + b7(x); case 2: return b8(x) + b9(x) + b10(x) + b11(x); case 3: return b12(x) + b13(x) + b14(x) + b15(x);
      default: return 0;
    }
  }

  static int callT(int x) {
    switch (x & 3) {
      case 0: return t0(x) + t1(x) + t2(x) + t3(x); case 1: return t4(x) + t5(x) + t6(x) + t7(x); case 2: return t8(x) + t9(x) + t10(x) + t11(x); case 3: return t12(x) + t13(x) + t14(x) + t15(x);
      default: return 0;
    }
  }

  public static void main(String[] a) {
    boolean thr = a[0].equals("t");
    int every = Integer.parseInt(a[1]);
    int from = Integer.parseInt(a[2]);
    long best = Long.MAX_VALUE;
    int s = 0;
    for (int round = 0; round < 30; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < 2_000_000; i++) {
        if (round >= from && i % every == 0) sampling = Thread.currentThread();
        s += thr ? callT(i) : callB(i);
        sampling = null;
      }
      long dt = System.nanoTime() - t0;
      if (round >= 20) best = Math.min(best, dt);
    }
    System.out.println((thr ? "throw" : "branch") + " " + best / 1e6 + " " + samples + " " + s);
  }
}
