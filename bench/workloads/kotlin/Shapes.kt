// duplex workload: the Kotlin 1.3 compiler (kotlinc, itself mostly Kotlin, with the Kotlin
// standard library and IntelliJ's core) compiling this file. A sealed hierarchy with data
// classes, `when` over it, extension functions, lambdas with receivers, nullable types, a
// generic inline function with a reified type and string templates. The output compared is the
// class files kotlinc writes.
package duplex.workload

sealed class Shape {
    abstract val area: Long
}

data class Rect(val w: Long, val h: Long) : Shape() {
    override val area: Long get() = w * h
}

data class Circle(val r: Long) : Shape() {
    override val area: Long get() = 355 * r * r / 113
}

data class Group(val parts: List<Shape>) : Shape() {
    override val area: Long by lazy { parts.map { it.area }.sum() }
}

fun Shape.describe(): String = when (this) {
    is Rect -> if (w == h) "square($w)" else "rect($w x $h)"
    is Circle -> "circle($r)"
    is Group -> parts.firstOrNull()?.let { "group(${it.describe()} +${parts.size - 1})" } ?: "empty"
}

inline fun <reified T : Shape> List<Shape>.only(): List<T> = filterIsInstance<T>()

fun parse(token: String): Shape? {
    val fields = token.split(':')
    return when (fields.firstOrNull()) {
        "r" -> fields.getOrNull(2)?.let { Rect(fields[1].toLong(), it.toLong()) }
        "c" -> fields.getOrNull(1)?.let { Circle(it.toLong()) }
        else -> null
    }
}

tailrec fun gcd(a: Long, b: Long): Long = if (b == 0L) a else gcd(b, a % b)

fun main() {
    val shapes = "r:3:4 c:5 r:6:6 x:1 c:2".split(' ').mapNotNull(::parse)
    val report = buildString {
        append(Group(shapes).describe())
        append(' ')
        append(shapes.map { it.area })
        append(" circles ")
        append(shapes.only<Circle>().size)
    }
    println("$report gcd ${gcd(shapes.first().area, shapes.last().area)}")
}
