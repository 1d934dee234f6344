package p;

// The host's superclass, in another package: its protected members are what a twin in a class
// of its own cannot reach (nestmates share private access only).
public class Base {
  protected int inherited() {
    return 7;
  }
}
