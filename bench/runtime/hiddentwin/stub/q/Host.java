package q;

// Compile-time view of Host for the twin's source: the same members, package-private, so that
// javac emits the references a rewriter would; the twin runs against the real Host, where
// they are private (and inherited() is Base's protected method).
public class Host {
  int secret;

  static int twice(int x) {
    return 0;
  }

  int plusSecret(int x) {
    return 0;
  }

  int inherited() {
    return 0;
  }
}
