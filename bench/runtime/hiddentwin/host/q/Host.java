package q;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

// A class as the rewriter would leave it with lazy twins: private members its twins use, and a
// method handing out a full-privilege lookup, which defining a hidden nestmate needs.
public class Host extends p.Base {
  private int secret = 40;

  private static int twice(int x) {
    return 2 * x;
  }

  private int plusSecret(int x) {
    return x + secret;
  }

  // The checking code's way into a twin when the class is too old for invokedynamic (before
  // version 51): a method handle the runtime hands out, called with invokeExact.
  public int callThrough(MethodHandle twin) throws Throwable {
    return (int) twin.invokeExact(this);
  }

  public static MethodHandles.Lookup duplexLookup() {
    return MethodHandles.lookup();
  }
}
