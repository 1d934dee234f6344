package duplextest;

import static duplextest.RuntimeTest.elements;
import static duplextest.RuntimeTest.expectEq;
import static duplextest.RuntimeTest.parse;

import duplex.runtime.Duplex;
import java.util.List;
import org.w3c.dom.Element;

/**
 * Outlined methods written by hand the way the rewriter emits them (runtime contract, "Outlined
 * methods"): the duplicated code of {@code m} moved to {@code private static m$duplex}, called
 * only from {@code m} (its checking twin) with the live locals as arguments. Here the "sampled
 * code" is always taken.
 *
 * <ul>
 *   <li>{@code foo} is an outlined callee: {@code foo$duplex} calls Duplex.callEdge, so the
 *       runtime must skip foo$duplex and foo to find the caller.
 *   <li>{@code bar} is an outlined caller: {@code bar$duplex} calls foo and callee; its site
 *       table line {@code method bar$duplex(II)I TAB bar(I)I} reports those edges under bar.
 *   <li>{@code baz$duplex} calls callee at a bci its table does not list: reported under baz,
 *       offset -1. {@code plain} is an ordinary caller (old-style method line).
 * </ul>
 */
final class Outlined {
  static final String FOO_KEY = "duplextest/Outlined.foo(I)I";
  static final String CALLEE_KEY = "duplextest/Outlined.callee()V";

  /** The caller frame seen by the last foo$duplex or callee (StackWalker, independently). */
  static volatile String lastMethod;

  static volatile int lastBci;
  static volatile int lastLine;

  private Outlined() {}

  private static void see(int skip) {
    StackWalker.StackFrame f =
        StackWalker.getInstance().walk(s -> s.skip(skip).findFirst().get());
    lastMethod = f.getMethodName();
    lastBci = f.getByteCodeIndex();
    lastLine = f.getLineNumber();
  }

  // The outlined callee: the checking twin calls its outlined twin.
  static int foo(int x) {
    return foo$duplex(x);
  }

  private static int foo$duplex(int x) {
    Duplex.callEdge(FOO_KEY); // as at the entry of foo's sampled code
    see(3); // see, foo$duplex, foo: the caller is next
    return x + 1;
  }

  // An ordinary callee.
  static void callee() {
    Duplex.callEdge(CALLEE_KEY);
    see(2);
  }

  // The outlined caller.
  static int bar(int x) {
    return bar$duplex(x, 2);
  }

  private static int bar$duplex(int x, int y) {
    int r = foo(x) + y;
    callee();
    return r;
  }

  static void baz() {
    baz$duplex();
  }

  private static void baz$duplex() {
    callee();
  }

  static int plain(int x) {
    return foo(x);
  }

  private static Element edge(List<Element> edges, String method, String callee) {
    Element found = null;
    for (Element e : edges) {
      if (e.getAttribute("caller-method").equals(method)
          && e.getAttribute("callee").equals(callee)) {
        expectEq(null, found, "second edge " + method + " -> " + callee);
        found = e;
      }
    }
    if (found == null) throw new RuntimeTest.Failure("no edge " + method + " -> " + callee);
    return found;
  }

  private static void expectEdge(List<Element> edges, String method, String descriptor,
      String callee, int offset, int line, int count) {
    Element e = edge(edges, method, callee);
    String what = method + " -> " + callee + ": ";
    expectEq("duplextest/Outlined", e.getAttribute("caller-class"), what + "caller class");
    expectEq(descriptor, e.getAttribute("caller-descriptor"), what + "caller descriptor");
    expectEq(Integer.toString(offset), e.getAttribute("offset"), what + "offset");
    expectEq(Integer.toString(line), e.getAttribute("line"), what + "line");
    expectEq(Integer.toString(count), e.getAttribute("count"), what + "count");
  }

  /** The test; call edges must be on (interval irrelevant: callEdge is called directly). */
  static void check() throws Exception {
    // Before any table: callee skip (rule a) alone; outlined callers report as themselves.
    Duplex.reset();
    plain(1);
    String plainSeen = lastMethod;
    int plainBci = lastBci;
    int plainLine = lastLine;
    bar(1);
    String barSeenFoo = lastMethod; // set by callee, the last call in bar$duplex
    int barCalleeBci = lastBci;
    int barCalleeLine = lastLine;
    expectEq("bar$duplex", barSeenFoo, "StackWalker's caller of callee");
    expectEq("plain", plainSeen, "StackWalker's caller of foo");
    List<Element> edges = elements(parse(Duplex.profileXml()), "edge");
    expectEq(3, edges.size(), "edges before registration");
    expectEdge(edges, "plain", "(I)I", FOO_KEY, plainBci, plainLine, 1);
    expectEdge(edges, "bar$duplex", "(II)I", CALLEE_KEY, barCalleeBci, barCalleeLine, 1);
    int barFooBci = Integer.parseInt(edge(edges, "bar$duplex", FOO_KEY).getAttribute("offset"));
    expectEq(true, barFooBci < barCalleeBci, "foo is called before callee in bar$duplex");

    // Rule b: the table maps the outlined caller's bcis and names the original method.
    Duplex.register(Outlined.class,
        "duplex-sites 2\nclass duplextest/Outlined\n"
            + "method bar$duplex(II)I\tbar(I)I\ncall " + barFooBci + " 100 200\ncall "
            + barCalleeBci + " 101 -1\n"
            + "method baz$duplex()V\tbaz()V\ncall 9999 1 1\n"
            + "method plain(I)I\ncall " + plainBci + " 7 8\n");
    Duplex.reset();
    for (int i = 0; i < 3; i++) bar(i);
    baz();
    int bazLine = lastLine;
    plain(2);
    plain(3);
    edges = elements(parse(Duplex.profileXml()), "edge");
    expectEq(4, edges.size(), "edges after registration");
    expectEdge(edges, "bar", "(I)I", FOO_KEY, 100, 200, 3);
    expectEdge(edges, "bar", "(I)I", CALLEE_KEY, 101, barCalleeLine, 3); // line -1: the frame's
    expectEdge(edges, "baz", "()V", CALLEE_KEY, -1, bazLine, 1);
    expectEdge(edges, "plain", "(I)I", FOO_KEY, 7, 8, 2);
  }
}
