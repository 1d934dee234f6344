# duplex workload: JRuby 9.3 (its runtime, parser and interpreter, and with
# jruby.compile.mode=FORCE the compiler that turns these methods into JVM classes) over
# jQuery's source. Classes with a module mixed in, blocks, hashes with defaults, regular
# expressions (JRuby's Joni), method_missing, exceptions and string formatting.
# Deterministic output on stdout.
#   org.jruby.Main workload.rb JQUERY_JS ROUNDS
TOKEN = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+|[{}()\[\];,.=+\-*\/<>!&|?:]/
KEYWORDS = %w[var function return if else for].freeze

module Labelled
  def label
    self.class.name.downcase
  end
end

class Rect
  include Labelled
  def initialize(w, h)
    @w = w
    @h = h
  end

  def area
    @w * @h
  end
end

class Circle
  include Labelled
  def initialize(r)
    @r = r
  end

  def area
    355 * @r * @r / 113
  end
end

class Calculator
  def method_missing(name, *args)
    m = /\Atimes(\d+)\z/.match(name.to_s)
    return args[0] * m[1].to_i if m
    super
  end

  def respond_to_missing?(name, include_private = false)
    name.to_s.start_with?("times") || super
  end
end

def kind(token)
  return "number" if token =~ /\A[0-9]+\z/
  return "keyword" if KEYWORDS.include?(token)
  return "identifier" if token =~ /\A[A-Za-z_$]/
  "punct"
end

def one_round(text, i)
  tokens = text.scan(TOKEN)
  kinds = Hash.new(0)
  tokens.each { |t| kinds[kind(t)] += 1 }
  idents = tokens.first(2000 + 37 * i).select { |t| kind(t) == "identifier" }.uniq
  counts = Hash.new(0)
  tokens.first(20_000).each { |t| counts[t] += 1 }
  top = counts.sort_by { |t, n| [-n, t] }.first(5).map { |t, n| "#{t}=#{n}" }.join(" ")
  shapes = (1...40).map { |k| k.even? ? Rect.new(k, k + 1) : Circle.new(k) }
  areas = shapes.group_by(&:label).map { |l, s| [l, s.sum(&:area)] }.sort
  calc = Calculator.new
  caught = begin
    calc.divide(1)
  rescue NoMethodError => e
    "caught #{e.name}"
  end
  format("round %d: %d tokens, kinds %s, %d identifiers, top %s, areas %s, %d %s",
         i, tokens.size, kinds.sort.inspect, idents.size, top, areas.inspect, calc.times7(i),
         caught)
end

text = File.read(ARGV[0])
ARGV[1].to_i.times { |i| puts one_round(text, i) }
