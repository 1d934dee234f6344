// commons-compress + xz workload: round-trips deterministic data through gzip, bzip2, xz,
// deflate and the tar, zip and 7z archive formats, and prints sizes and CRC-32s. Entry
// times are fixed, so the output is the same on every run.
//
//   java CompressRoundTrip WORKDIR ROUNDS SIZE INPUT_FILE...
// SIZE: bytes of synthetic text, and the most bytes taken from each input file.
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.commons.compress.archivers.sevenz.SevenZArchiveEntry;
import org.apache.commons.compress.archivers.sevenz.SevenZFile;
import org.apache.commons.compress.archivers.sevenz.SevenZMethod;
import org.apache.commons.compress.archivers.sevenz.SevenZOutputFile;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.compressors.CompressorStreamFactory;

public final class CompressRoundTrip {
  private static final long FIXED_TIME = 1_600_000_000_000L;

  public static void main(String[] args) throws Exception {
    File work = new File(args[0]);
    work.mkdirs();
    int rounds = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    List<String> names = new ArrayList<>();
    List<byte[]> inputs = new ArrayList<>();
    for (int i = 3; i < args.length; i++) {
      File f = new File(args[i]);
      names.add(f.getName());
      byte[] b = Files.readAllBytes(f.toPath());
      inputs.add(java.util.Arrays.copyOf(b, Math.min(b.length, size)));
    }
    names.add("synthetic.txt");
    inputs.add(synthetic(size));
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < inputs.size(); i++) {
        for (String format : new String[] {"gz", "bzip2", "xz", "deflate"}) {
          compressor(format, names.get(i), inputs.get(i), r == 0);
        }
      }
      tar(names, inputs, r == 0);
      zip(names, inputs, r == 0);
      sevenZ(new File(work, "bench.7z"), names, inputs, r == 0);
    }
  }

  // Text with a skewed word distribution from a fixed linear congruential generator.
  private static byte[] synthetic(int size) {
    String[] words = {"duplex", "sample", "check", "counter", "edge", "field", "the", "a",
                      "instrumentation", "of", "and", "framework", "backedge", "entry"};
    StringBuilder sb = new StringBuilder(size + 32);
    long seed = 12345;
    while (sb.length() < size) {
      seed = seed * 6364136223846793005L + 1442695040888963407L;
      int w = (int) ((seed >>> 33) % 1000);
      sb.append(words[(w * w) % words.length]).append(w % 17 == 0 ? ".\n" : " ");
    }
    return sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  private static long crc(byte[] b) {
    CRC32 c = new CRC32();
    c.update(b, 0, b.length);
    return c.getValue();
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    for (int n; (n = in.read(buf)) > 0; ) out.write(buf, 0, n);
    return out.toByteArray();
  }

  private static void report(boolean print, String what, int packed, byte[] original, byte[] back) {
    if (crc(original) != crc(back) || original.length != back.length) {
      throw new IllegalStateException(what + ": round trip changed the data");
    }
    if (print) {
      System.out.printf("%-28s %9d -> %9d crc %08x%n", what, original.length, packed, crc(back));
    }
  }

  private static void compressor(String format, String name, byte[] data, boolean print)
      throws Exception {
    CompressorStreamFactory f = new CompressorStreamFactory();
    ByteArrayOutputStream packed = new ByteArrayOutputStream();
    try (OutputStream out = f.createCompressorOutputStream(format, packed)) {
      out.write(data);
    }
    byte[] p = packed.toByteArray();
    byte[] back;
    try (InputStream in = f.createCompressorInputStream(format, new ByteArrayInputStream(p))) {
      back = readAll(in);
    }
    report(print, format + " " + name, p.length, data, back);
  }

  private static void tar(List<String> names, List<byte[]> inputs, boolean print)
      throws IOException {
    ByteArrayOutputStream packed = new ByteArrayOutputStream();
    try (TarArchiveOutputStream out = new TarArchiveOutputStream(packed)) {
      out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (int i = 0; i < names.size(); i++) {
        TarArchiveEntry e = new TarArchiveEntry("data/" + names.get(i));
        e.setSize(inputs.get(i).length);
        e.setModTime(FIXED_TIME);
        out.putArchiveEntry(e);
        out.write(inputs.get(i));
        out.closeArchiveEntry();
      }
    }
    byte[] p = packed.toByteArray();
    try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(p))) {
      for (int i = 0; i < names.size(); i++) {
        TarArchiveEntry e = in.getNextTarEntry();
        report(print, "tar " + e.getName(), p.length, inputs.get(i), readAll(in));
      }
    }
  }

  private static void zip(List<String> names, List<byte[]> inputs, boolean print)
      throws IOException {
    ByteArrayOutputStream packed = new ByteArrayOutputStream();
    try (ZipArchiveOutputStream out = new ZipArchiveOutputStream(packed)) {
      for (int i = 0; i < names.size(); i++) {
        ZipArchiveEntry e = new ZipArchiveEntry("data/" + names.get(i));
        e.setTime(FIXED_TIME);
        out.putArchiveEntry(e);
        out.write(inputs.get(i));
        out.closeArchiveEntry();
      }
    }
    byte[] p = packed.toByteArray();
    try (ZipArchiveInputStream in = new ZipArchiveInputStream(new ByteArrayInputStream(p))) {
      for (int i = 0; i < names.size(); i++) {
        ZipArchiveEntry e = in.getNextZipEntry();
        report(print, "zip " + e.getName(), p.length, inputs.get(i), readAll(in));
      }
    }
  }

  private static void sevenZ(File file, List<String> names, List<byte[]> inputs, boolean print)
      throws IOException {
    try (SevenZOutputFile out = new SevenZOutputFile(file)) {
      out.setContentCompression(SevenZMethod.LZMA2);
      for (int i = 0; i < names.size(); i++) {
        SevenZArchiveEntry e = new SevenZArchiveEntry();
        e.setName("data/" + names.get(i));
        e.setLastModifiedDate(new Date(FIXED_TIME));
        e.setSize(inputs.get(i).length);
        out.putArchiveEntry(e);
        out.write(inputs.get(i));
        out.closeArchiveEntry();
      }
    }
    int packed = (int) file.length();
    try (SevenZFile in = new SevenZFile(file)) {
      for (int i = 0; i < names.size(); i++) {
        SevenZArchiveEntry e = in.getNextEntry();
        byte[] back = new byte[(int) e.getSize()];
        int off = 0;
        while (off < back.length) {
          int n = in.read(back, off, back.length - off);
          if (n < 0) break;
          off += n;
        }
        report(print, "7z " + e.getName(), packed, inputs.get(i), back);
      }
    }
  }
}
