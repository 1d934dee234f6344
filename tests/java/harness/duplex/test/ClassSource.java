package duplex.test;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The class files of a directory tree or a jar, keyed by binary name (sorted, so every report
 * is deterministic). The name comes from the class file's this_class entry when it parses, so a
 * rewritten class is checked under the name the JVM will see; otherwise from its path.
 * module-info.class and META-INF/ (multi-release variants) are skipped.
 */
final class ClassSource {
    /** Entries whose name could not be used: reported by callers as failures. */
    final List<String> problems = new ArrayList<>();
    final Map<String, byte[]> classes = new TreeMap<>();

    private ClassSource() {}

    static ClassSource read(Path input) throws IOException {
        ClassSource src = new ClassSource();
        if (Files.isDirectory(input)) {
            try (Stream<Path> walk = Files.walk(input)) {
                for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                    String rel = input.relativize(p).toString().replace('\\', '/');
                    if (Files.isRegularFile(p) && wanted(rel)) {
                        src.add(rel, Files.readAllBytes(p));
                    }
                }
            }
        } else {
            try (ZipFile zip = new ZipFile(input.toFile())) {
                Enumeration<? extends ZipEntry> en = zip.entries();
                while (en.hasMoreElements()) {
                    ZipEntry e = en.nextElement();
                    if (!e.isDirectory() && wanted(e.getName())) {
                        try (InputStream in = zip.getInputStream(e)) {
                            src.add(e.getName(), in.readAllBytes());
                        }
                    }
                }
            }
        }
        return src;
    }

    private static boolean wanted(String rel) {
        return rel.endsWith(".class") && !rel.startsWith("META-INF/")
                && !rel.equals("module-info.class") && !rel.endsWith("/module-info.class");
    }

    private void add(String rel, byte[] bytes) {
        String name = thisClassName(bytes);
        if (name == null) {
            name = rel.substring(0, rel.length() - ".class".length()).replace('/', '.');
        }
        if (classes.putIfAbsent(name, bytes) != null) {
            problems.add(rel + ": second definition of " + name);
        }
    }

    /** this_class of a class file as a binary name ("a.b.C$D"), or null if it does not parse. */
    static String thisClassName(byte[] bytes) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != 0xCAFEBABE) {
                return null;
            }
            in.readUnsignedShort(); // minor
            in.readUnsignedShort(); // major
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classNameIndex = new int[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1: utf8[i] = in.readUTF(); break;
                    case 7: classNameIndex[i] = in.readUnsignedShort(); break;
                    case 8: case 16: case 19: case 20: in.skipNBytes(2); break;
                    case 15: in.skipNBytes(3); break;
                    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
                        in.skipNBytes(4);
                        break;
                    case 5: case 6: in.skipNBytes(8); i++; break; // two constant pool slots
                    default: return null;
                }
            }
            in.readUnsignedShort(); // access_flags
            int thisClass = in.readUnsignedShort();
            if (thisClass <= 0 || thisClass >= count || classNameIndex[thisClass] <= 0
                    || classNameIndex[thisClass] >= count) {
                return null;
            }
            String internal = utf8[classNameIndex[thisClass]];
            return internal == null ? null : internal.replace('/', '.');
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }
}
