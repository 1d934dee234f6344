package q;

// The twin class: static methods that use the host's private members, as duplicated code does.
final class Twin {
  static int privateField(Host h) {
    h.secret += 2;
    return h.secret;
  }

  static int privateStatic(Host h) {
    return Host.twice(21);
  }

  static int privateVirtual(Host h) {
    return h.plusSecret(2);
  }

  static int frames(Host h) {
    return Probe.frames("q.Twin");
  }

  static int protectedInherited(Host h) {
    return h.inherited();
  }
}
