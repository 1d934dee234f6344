// Names as profile keys write them. A class, method or field name may hold any character but
// a few (JVMS 4.2.2), tabs and line breaks included; keys separate their fields with tabs and
// the tables the runtime reads (counters, call sites) are one line per entry. So keys carry
// names escaped: '\' as "\\", tab as "\t", line feed as "\n", carriage return as "\r"; every
// other character stays as it is (docs/design/runtime-contract.md, "Key text").
#pragma once

#include <string>
#include <string_view>

namespace duplex {

// Appends `text` to `out`, escaped as above.
void append_key_text(std::string& out, std::string_view text);

// `text` escaped as above.
std::string key_text(std::string_view text);

}  // namespace duplex
