// Rhino workload: syntax-highlights jQuery with highlight.js and prints a digest of the HTML.
// Arguments: HIGHLIGHT_JS JQUERY_JS ROUNDS CHARS (highlights the first CHARS characters)
var hlPath = arguments[0], srcPath = arguments[1], rounds = parseInt(arguments[2] || "2", 10);
var chars = parseInt(arguments[3] || "1000000000", 10);
var window = {}; // highlight.js attaches itself to a global object
load(hlPath);
var hl = window.hljs;
// Version 9 prints an end-of-life notice through console.log unless told not to.
hl.configure({hideUpgradeWarningAcceptNoSupportOrSecurityUpdates: true});
var source = readFile(srcPath);
source = source.substring(0, Math.min(chars, source.length));

// A 32-bit FNV-1a digest, so the output is short and independent of the JVM.
function fnv(s) {
  var h = 0x811c9dc5;
  for (var i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = (h * 0x01000193) >>> 0;
  }
  return ("00000000" + h.toString(16)).slice(-8);
}

for (var r = 0; r < rounds; r++) {
  var res = hl.highlight("javascript", source, true);
  var html = res.value;
  var spans = html.split("<span").length - 1;
  print("round " + r + ": language=" + res.language + " relevance=" + res.relevance +
        " html=" + html.length + " spans=" + spans + " fnv=" + fnv(html));
}
var auto = hl.highlightAuto(source.substring(0, 10000), ["javascript", "java", "python", "css", "xml"]);
print("auto: " + auto.language + " relevance=" + auto.relevance);
