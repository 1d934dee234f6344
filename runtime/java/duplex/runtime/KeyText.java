package duplex.runtime;

/**
 * Names as profile keys write them (rewriter/key_text.h): a class, method or field name may hold
 * tabs and line breaks (JVMS 4.2.2), which part a key's fields and a table's lines, so keys carry
 * names with '\' written as "\\", tab as "\t", line feed as "\n" and carriage return as "\r".
 * Names the runtime takes from the JVM (stack frames, classes) are escaped the same way before
 * they meet keys or tables, and unescaped before they meet reflection.
 */
final class KeyText {
  private KeyText() {}

  static String escape(String name) {
    int i = 0;
    while (i < name.length() && !special(name.charAt(i))) i++;
    if (i == name.length()) return name; // almost every name
    StringBuilder b = new StringBuilder(name.length() + 8).append(name, 0, i);
    for (; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!special(c)) {
        b.append(c);
        continue;
      }
      b.append('\\').append(c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\');
    }
    return b.toString();
  }

  static String unescape(String text) {
    if (text.indexOf('\\') < 0) return text;
    StringBuilder b = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\\' || i + 1 == text.length()) {
        b.append(c);
        continue;
      }
      char e = text.charAt(++i);
      b.append(e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e);
    }
    return b.toString();
  }

  /**
   * Where the descriptor starts in {@code text} ("name(desc)ret", from {@code from} on): at the
   * first '(' from which the rest is one whole method descriptor, since a method name may hold
   * '(' and ')'; -1 when there is none.
   */
  static int descriptorStart(String text, int from) {
    for (int p = text.indexOf('(', from); p >= 0; p = text.indexOf('(', p + 1)) {
      if (isMethodDescriptor(text, p)) return p;
    }
    return -1;
  }

  /**
   * The first ':' in {@code text} from {@code from} on after which the rest is one whole field
   * type ("name:desc"; a field name may hold ':'), or -1.
   */
  static int fieldTypeAfterColon(String text, int from) {
    for (int c = text.indexOf(':', from); c >= 0; c = text.indexOf(':', c + 1)) {
      if (fieldTypeEnd(text, c + 1) == text.length()) return c;
    }
    return -1;
  }

  private static boolean isMethodDescriptor(String t, int p) {
    int i = p + 1;
    while (i < t.length() && t.charAt(i) != ')') {
      i = fieldTypeEnd(t, i);
      if (i < 0) return false;
    }
    if (i >= t.length()) return false;
    i++;
    if (i == t.length() - 1 && t.charAt(i) == 'V') return true;
    return i < t.length() && fieldTypeEnd(t, i) == t.length();
  }

  /** The end of the field type at {@code i}, or -1. */
  private static int fieldTypeEnd(String t, int i) {
    while (i < t.length() && t.charAt(i) == '[') i++;
    if (i >= t.length()) return -1;
    char c = t.charAt(i);
    if ("BCDFIJSZ".indexOf(c) >= 0) return i + 1;
    if (c != 'L') return -1;
    int semi = t.indexOf(';', i);
    return semi > i + 1 ? semi + 1 : -1;
  }

  private static boolean special(char c) {
    return c == '\\' || c == '\t' || c == '\n' || c == '\r';
  }
}
