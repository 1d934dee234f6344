package duplex.test;

import java.io.File;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints "NAME SERIALVERSIONUID" for every Serializable class of a jar or directory, as
 * serialization gives it (declared, or computed from the class), in name order, then a last
 * line "# N serializable, M not loadable". Comparing the lists of an original and its rewrite
 * shows whether the rewrite changed any.
 *
 * <p>Usage: SerialVersions INPUT [CLASSPATH] (CLASSPATH: what INPUT's classes need, ':'
 * between entries). Classes are loaded without being initialized; those that cannot be loaded
 * or described (a missing dependency) are counted, not printed.
 */
public final class SerialVersions {
    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(new File(args[0]).toURI().toURL());
        if (args.length > 1) {
            for (String entry : args[1].split(":")) {
                if (!entry.isEmpty()) urls.add(new File(entry).toURI().toURL());
            }
        }
        ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), null);
        int serializable = 0, unloadable = 0;
        StringBuilder out = new StringBuilder();
        for (String name : ClassSource.read(Path.of(args[0])).classes.keySet()) {
            try {
                Class<?> c = Class.forName(name, false, loader);
                if (!Serializable.class.isAssignableFrom(c)) continue;
                long suid = ObjectStreamClass.lookupAny(c).getSerialVersionUID();
                out.append(name).append(' ').append(suid).append('\n');
                serializable++;
            } catch (Throwable e) {
                unloadable++;
            }
        }
        out.append("# ").append(serializable).append(" serializable, ").append(unloadable)
                .append(" not loadable\n");
        System.out.print(out);
    }
}
