// duplex workload: the Scala 2.11 compiler (scalac, itself Scala: scala-compiler, -reflect and
// -library) compiling this file. Case classes, a sealed hierarchy with pattern matching, a type
// class with implicits, for-comprehensions over Option and Either, lazy vals, tail recursion and
// string interpolation: typing, pattern-match analysis, erasure, lambda lifting and the
// bytecode back end all run. The output compared is the class files scalac writes.
package duplex.workload

import scala.annotation.tailrec

sealed trait Shape { def area: Long }
final case class Rect(w: Long, h: Long) extends Shape { def area: Long = w * h }
final case class Circle(r: Long) extends Shape { def area: Long = 355 * r * r / 113 }
final case class Group(parts: List[Shape]) extends Shape { lazy val area: Long = parts.map(_.area).sum }

trait Show[A] { def show(a: A): String }
object Show {
  implicit val longShow: Show[Long] = new Show[Long] { def show(a: Long) = s"#$a" }
  implicit def listShow[A](implicit s: Show[A]): Show[List[A]] =
    new Show[List[A]] { def show(as: List[A]) = as.map(s.show).mkString("[", ",", "]") }
  implicit val shapeShow: Show[Shape] = new Show[Shape] {
    def show(sh: Shape): String = sh match {
      case Rect(w, h) if w == h => s"square($w)"
      case Rect(w, h)           => s"rect($w x $h)"
      case Circle(r)            => s"circle($r)"
      case Group(Nil)           => "empty"
      case Group(p :: rest)     => s"group(${show(p)} +${rest.size})"
    }
  }
}

object Shapes {
  def render[A](a: A)(implicit s: Show[A]): String = s.show(a)

  @tailrec def gcd(a: Long, b: Long): Long = if (b == 0) a else gcd(b, a % b)

  def parse(token: String): Either[String, Shape] = token.split(':') match {
    case Array("r", w, h) => Right(Rect(w.toLong, h.toLong))
    case Array("c", r)    => Right(Circle(r.toLong))
    case other            => Left(s"bad token ${other.mkString(":")}")
  }

  def main(args: Array[String]): Unit = {
    val parsed = "r:3:4 c:5 r:6:6 x:1 c:2".split(' ').toList.map(parse)
    val shapes = parsed.collect { case Right(s) => s }
    val errors = parsed.collect { case Left(e) => e }
    val all = Group(shapes)
    val common = for {
      a <- shapes.headOption
      b <- shapes.lastOption
    } yield gcd(a.area, b.area)
    println(render[Shape](all) + " " + render(shapes.map(_.area)) + " " + common + " " + errors)
    println(shapes.groupBy(_.getClass.getSimpleName).mapValues(_.map(_.area).sum).toList.sorted)
  }
}
