import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/** Runs p.Host.run on two threads at once, its twin class defined only at that first call. */
public final class IndyTwin {
  public static void main(String[] args) throws Exception {
    TwinLinker.PENDING.put("p.Host$DuplexTwins", Files.readAllBytes(Path.of(args[0])));
    Class<?> host = Class.forName("p.Host");
    Object h = host.getConstructor().newInstance();
    var run = host.getMethod("run", int.class);
    System.out.println("twin class defined before the first call: "
        + !TwinLinker.PENDING.containsKey("p.Host$DuplexTwins"));
    CountDownLatch go = new CountDownLatch(1);
    int[] results = new int[2];
    Thread[] threads = new Thread[2];
    for (int t = 0; t < 2; t++) {
      final int k = t;
      threads[t] = new Thread(() -> {
        try {
          go.await();
          results[k] = (Integer) run.invoke(h, 1);
        } catch (Exception e) {
          results[k] = -1;
          e.printStackTrace();
        }
      });
      threads[t].start();
    }
    go.countDown();
    for (Thread t : threads) t.join();
    System.out.println("two first calls at once: " + results[0] + " " + results[1]
        + " (expected 81 81)");
    Class<?> twin = Class.forName("p.Host$DuplexTwins", false, host.getClassLoader());
    System.out.println("twin class: same loader " + (twin.getClassLoader() == host.getClassLoader())
        + ", nest host " + twin.getNestHost().getName() + ", hidden " + twin.isHidden());
  }
}
