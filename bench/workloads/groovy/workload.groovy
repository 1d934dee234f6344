// duplex workload: Groovy 2.4 (groovy-all: the runtime, its call-site caching and the
// compiler that compiles this script when it starts) over jQuery's source. Closures, GStrings,
// collection methods, classes with properties, a trait-less interface, dynamic dispatch
// (methodMissing, a metaClass method), regular expressions and exceptions. Deterministic
// output on stdout.
//   groovy.ui.GroovyMain workload.groovy JQUERY_JS ROUNDS

interface Shape { long area(); String getLabel() }
class Rect implements Shape {
  long w, h
  long area() { w * h }
  String getLabel() { "rect" }
}
class Circle implements Shape {
  long r
  long area() { (355 * r * r).intdiv(113) }
  String getLabel() { "circle" }
}
class Calculator {
  def methodMissing(String name, args) {
    if (name.startsWith("times")) return args[0] * (name - "times").toInteger()
    throw new MissingMethodException(name, Calculator, args)
  }
}

String.metaClass.shout = { -> delegate.toUpperCase() + "!" }

def tokens(String text) {
  (text =~ /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+|[{}()\[\];,.=+\-*\/<>!&|?:]/).collect { it }
}

def kind(String t) {
  switch (t) {
    case ~/[0-9]+/: return "number"
    case ["var", "function", "return", "if", "else", "for"]: return "keyword"
    case ~/[A-Za-z_$][A-Za-z0-9_$]*/: return "identifier"
    default: return "punct"
  }
}

def round(String text, int i) {
  def toks = tokens(text)
  def kinds = new TreeMap(toks.countBy { kind(it) })
  def idents = toks.take(2000 + 37 * i).findAll { kind(it) == "identifier" } as Set
  def counts = [:].withDefault { 0 }
  toks.take(20000).each { counts[it]++ }
  def top = counts.entrySet().sort { a, b -> b.value <=> a.value ?: a.key <=> b.key }.take(5)
  def shapes = (1..<40).collect { k -> k % 2 == 0 ? new Rect(w: k, h: k + 1) : new Circle(r: k) }
  def areas = new TreeMap(shapes.groupBy { it.label }.collectEntries { k, v -> [k, v.sum { it.area() }] })
  def calc = new Calculator()
  def missing
  try {
    calc.divide(1)
  } catch (MissingMethodException e) {
    missing = "caught ${e.method}"
  }
  "round $i: ${toks.size()} tokens, kinds $kinds, ${idents.size()} identifiers, " +
      "top ${top.collect { "${it.key}=${it.value}" }.join(' ')}, areas $areas, " +
      "${calc.times7(i)} ${missing} ${'jquery'.shout()}"
}

def text = new File(args[0]).getText("UTF-8")
(0..<args[1].toInteger()).each { println round(text, it) }
