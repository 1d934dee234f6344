// The packages only the JDK defines, for the places that treat JDK classes apart (the class
// counters, sampled calls, the agent's jdk=false).
#pragma once

#include <string_view>

namespace duplex {

// True for an internal class name (a/b/C) in java., javax., jdk., sun. or com.sun.
inline bool in_jdk_package(std::string_view internal_name) {
  for (std::string_view p : {"java/", "javax/", "jdk/", "sun/", "com/sun/"}) {
    if (internal_name.starts_with(p)) return true;
  }
  return false;
}

}  // namespace duplex
