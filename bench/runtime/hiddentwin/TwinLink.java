import java.lang.invoke.MethodHandles;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

// Do real twins verify and link as hidden nestmates of their hosts? (docs/design/lazy-twins.md)
// For every DIR/<host binary name>.twins (a twin class bench/twin_link.py built from a
// rewritten class: the host's pool, its movable twins), loads the host from the class path
// without initialising it, takes a full-privilege lookup on it, and defines the twin class as
// a hidden nestmate, initialised (so HotSpot verifies and links every twin in it). Prints one
// line per failure and a count by outcome.
//
//   java -Xbootclasspath/a:RUNTIME.jar -cp APP_CLASSPATH:. TwinLink DIR
public final class TwinLink {
  public static void main(String[] args) throws Exception {
    Map<String, Integer> outcomes = new TreeMap<>();
    int methods = 0;
    try (DirectoryStream<Path> twins = Files.newDirectoryStream(Path.of(args[0]), "*.twins")) {
      for (Path file : twins) {
        String name = file.getFileName().toString();
        String host = name.substring(0, name.length() - ".twins".length());
        String outcome;
        Class<?> hostClass;
        try {
          hostClass = Class.forName(host, false, TwinLink.class.getClassLoader());
        } catch (Throwable e) {  // a dependency jar not installed: the original fails alike
          outcomes.merge("host does not load", 1, Integer::sum);
          continue;
        }
        try {
          MethodHandles.Lookup lookup =
              MethodHandles.privateLookupIn(hostClass, MethodHandles.lookup());
          Class<?> twin = lookup.defineHiddenClass(Files.readAllBytes(file), true,
              MethodHandles.Lookup.ClassOption.NESTMATE).lookupClass();
          methods += twin.getDeclaredMethods().length;
          outcome = "linked";
        } catch (NoClassDefFoundError e) {
          // Verifying the twins needs a class of a dependency jar that is not installed; the
          // host itself would fail alike once linked.
          outcome = "a class missing from the class path";
        } catch (Throwable e) {
          outcome = e.getClass().getName();
          System.out.println(host + ": " + e.toString().lines().findFirst().orElse(""));
        }
        outcomes.merge(outcome, 1, Integer::sum);
      }
    }
    System.out.println("outcomes " + outcomes + ", twin methods linked " + methods);
  }
}
