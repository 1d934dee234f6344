package demo;

/**
 * A small n-body style simulation with a hot loop, calls and field accesses: the program the
 * README demo rewrites and profiles. Deterministic output.
 */
public final class Orbits {
  static final class Body {
    double x, y, vx, vy;
    final double mass;

    Body(double x, double y, double vx, double vy, double mass) {
      this.x = x;
      this.y = y;
      this.vx = vx;
      this.vy = vy;
      this.mass = mass;
    }

    void move(double dt) {
      x += vx * dt;
      y += vy * dt;
    }

    double kinetic() {
      return 0.5 * mass * (vx * vx + vy * vy);
    }
  }

  static int collisions;
  static long steps;

  static double distance(Body a, Body b) {
    double dx = a.x - b.x;
    double dy = a.y - b.y;
    return Math.sqrt(dx * dx + dy * dy) + 1e-3;
  }

  static void pull(Body a, Body b, double dt) {
    double d = distance(a, b);
    if (d < 0.05) collisions++;
    double f = a.mass * b.mass / (d * d * d);
    a.vx -= f * (a.x - b.x) * dt / a.mass;
    a.vy -= f * (a.y - b.y) * dt / a.mass;
    b.vx += f * (a.x - b.x) * dt / b.mass;
    b.vy += f * (a.y - b.y) * dt / b.mass;
  }

  static void step(Body[] bodies, double dt) {
    for (int i = 0; i < bodies.length; i++) {
      for (int j = i + 1; j < bodies.length; j++) pull(bodies[i], bodies[j], dt);
    }
    for (Body b : bodies) b.move(dt);
    steps++;
  }

  static double energy(Body[] bodies) {
    double e = 0;
    for (Body b : bodies) e += b.kinetic();
    return e;
  }

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20000;
    Body[] bodies = new Body[n];
    for (int i = 0; i < n; i++) {
      double angle = 2 * Math.PI * i / n;
      bodies[i] = new Body(Math.cos(angle) * (1 + i % 3), Math.sin(angle) * (1 + i % 3),
          -Math.sin(angle) * 0.3, Math.cos(angle) * 0.3, 1 + i % 4);
    }
    for (int r = 0; r < rounds; r++) step(bodies, 1e-4);
    System.out.printf("bodies=%d steps=%d collisions=%d energy=%.6f%n", n, steps, collisions,
        energy(bodies));
  }
}
